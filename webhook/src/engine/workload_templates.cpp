#include "engine/workload_templates.hpp"

#include "engine/json_util.hpp"

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

void walk(const rapidjson::Value& v, const std::vector<std::string_view>& tokens, std::size_t i,
          std::string& path, std::vector<PodTemplateRef>& out) {
  if (out.size() >= kMaxTemplates) return;
  if (i == tokens.size()) {
    if (v.IsObject()) out.push_back({&v, path});
    return;
  }
  const std::size_t mark = path.size();
  auto step = [&](const rapidjson::Value& child, std::string_view token) {
    if (!path.empty()) path += '.';
    path += token;
    walk(child, tokens, i + 1, path, out);
    path.resize(mark);
  };
  if (tokens[i] == "*") {
    if (v.IsObject()) {
      for (auto it = v.MemberBegin(); it != v.MemberEnd(); ++it)
        step(it->value, json::view(it->name));
    } else if (v.IsArray()) {
      for (rapidjson::SizeType k = 0; k < v.Size(); ++k) step(v[k], std::to_string(k));
    }
    return;
  }
  if (const rapidjson::Value* child = json::member(&v, tokens[i])) step(*child, tokens[i]);
}

void collect(const rapidjson::Value& object, std::string_view templatePath,
             std::vector<PodTemplateRef>& out) {
  std::string path;
  walk(object, splitPath(templatePath), 0, path, out);
}

}  // namespace

std::optional<std::vector<PodTemplateRef>> findPodTemplates(const rapidjson::Value& object,
                                                            std::string_view group,
                                                            std::string_view kind,
                                                            const policy::PolicySet& policy) {
  std::vector<PodTemplateRef> out;
  if (group == "apps" && (kind == "Deployment" || kind == "StatefulSet" || kind == "DaemonSet" ||
                          kind == "ReplicaSet")) {
    collect(object, "spec.template", out);
    return out;
  }
  if (group == "batch" && kind == "Job") {
    collect(object, "spec.template", out);
    return out;
  }
  if (group == "batch" && kind == "CronJob") {
    collect(object, "spec.jobTemplate.spec.template", out);
    return out;
  }
  for (const auto& tk : policy.templateKinds) {
    if (tk.apiGroup != group || tk.kind != kind) continue;
    for (const auto& p : tk.templatePaths) collect(object, p, out);
    return out;
  }
  return std::nullopt;
}

}  // namespace gpua::engine
