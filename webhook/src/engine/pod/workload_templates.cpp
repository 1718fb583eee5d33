#include "engine/pod/workload_templates.hpp"

#include <cctype>

#include "engine/core/json_util.hpp"
#include "engine/core/patch_op.hpp"
#include "engine/pod/workload_kinds.hpp"

namespace gpua::engine {

namespace {

constexpr std::size_t kMaxTemplates = 64;  // a bound on what a hostile object can make us walk

std::vector<std::string_view> splitPath(std::string_view path) {
  std::vector<std::string_view> out;
  while (!path.empty()) {
    const auto dot = path.find('.');
    out.push_back(path.substr(0, dot));
    if (dot == std::string_view::npos) break;
    path.remove_prefix(dot + 1);
  }
  return out;
}

struct Found {
  const rapidjson::Value* tmpl;
  std::string path;
  std::string pointer;  // the same place as a JSON pointer
  std::string replica;  // what the first '*' matched
};

struct Walk {
  const std::vector<std::string_view>& tokens;
  std::string path;
  std::string pointer;
  std::string replica;
  std::vector<Found>& out;

  void at(const rapidjson::Value& v, std::size_t i) {
    if (out.size() >= kMaxTemplates) return;
    if (i == tokens.size()) {
      if (v.IsObject()) out.push_back({&v, path, pointer, replica});
      return;
    }
    if (tokens[i] == "*") {
      if (v.IsObject()) {
        for (auto it = v.MemberBegin(); it != v.MemberEnd(); ++it)
          step(it->value, json::view(it->name), i, true);
      } else if (v.IsArray()) {
        for (rapidjson::SizeType k = 0; k < v.Size(); ++k) step(v[k], std::to_string(k), i, true);
      }
      return;
    }
    if (const rapidjson::Value* child = json::member(&v, tokens[i]))
      step(*child, tokens[i], i, false);
  }

  void step(const rapidjson::Value& child, std::string_view token, std::size_t i, bool star) {
    const std::size_t mark = path.size(), pointerMark = pointer.size();
    const bool firstStar = star && replica.empty();
    if (!path.empty()) path += '.';
    path += token;
    pointer.append("/").append(escapePointerToken(token));
    if (firstStar) replica = token;
    at(child, i + 1);
    path.resize(mark);
    pointer.resize(pointerMark);
    if (firstStar) replica.clear();
  }
};

void collect(const rapidjson::Value& object, std::string_view templatePath,
             std::vector<Found>& out) {
  const auto tokens = splitPath(templatePath);
  Walk{tokens, {}, {}, {}, out}.at(object, 0);
}

std::string lowerCase(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// "$(name)-$(replica)" with name "mnist" and replica "Worker" -> "mnist-worker".
std::string expand(std::string_view value, std::string_view name, std::string_view replica) {
  std::string out;
  while (!value.empty()) {
    if (value.starts_with("$(name)")) {
      out += name;
      value.remove_prefix(7);
    } else if (value.starts_with("$(replica)")) {
      out += lowerCase(std::string(replica));
      value.remove_prefix(10);
    } else {
      out += value.front();
      value.remove_prefix(1);
    }
  }
  return out;
}

void addLabels(const std::map<std::string, std::string>& labels, std::string_view name,
               const Found& f, kube::Labels& out) {
  for (const auto& [k, v] : labels) out[k] = expand(v, name, f.replica);
}

std::vector<PodTemplateRef> refs(std::vector<Found> found) {
  std::vector<PodTemplateRef> out;
  out.reserve(found.size());
  for (auto& f : found) out.push_back({f.tmpl, std::move(f.path), std::move(f.pointer), {}});
  return out;
}

}  // namespace

std::optional<std::vector<PodTemplateRef>> findPodTemplates(const rapidjson::Value& object,
                                                            std::string_view group,
                                                            std::string_view kind,
                                                            const policy::PolicySet& policy) {
  std::vector<Found> found;
  if (const WorkloadKind* builtin = findBuiltinWorkloadKind(group, kind)) {
    collect(object, builtin->templatePath, found);
    return refs(std::move(found));
  }
  for (const auto& tk : policy.templateKinds) {
    if (tk.apiGroup != group || tk.kind != kind) continue;
    const rapidjson::Value* metadata = json::objectMember(&object, "metadata");
    std::string_view name = json::stringMember(metadata, "name");
    if (name.empty()) name = json::stringMember(metadata, "generateName");
    std::vector<PodTemplateRef> out;
    for (const auto& p : tk.templatePaths) {
      found.clear();
      collect(object, p, found);
      const auto byPath = tk.podLabelsByPath.find(p);
      for (const auto& f : found) {
        PodTemplateRef ref{f.tmpl, f.path, f.pointer, {}};
        addLabels(tk.podLabels, name, f, ref.controllerLabels);
        if (byPath != tk.podLabelsByPath.end())
          addLabels(byPath->second, name, f, ref.controllerLabels);
        out.push_back(std::move(ref));
      }
      if (out.size() >= kMaxTemplates) break;
    }
    if (out.size() > kMaxTemplates) out.resize(kMaxTemplates);
    return out;
  }
  return std::nullopt;
}

}  // namespace gpua::engine
