#include "authoring/json_diff.hpp"

#include "authoring/documents.hpp"
#include "engine/core/patch_op.hpp"

namespace gpua::authoring {
namespace {

using rapidjson::Value;

void diffInto(const Value& e, const Value& a, const std::string& path,
              std::vector<std::string>& out) {
  if (e.IsObject() && a.IsObject()) {
    for (const auto& m : e.GetObject()) {
      const std::string child = path + "/" + engine::escapePointerToken(m.name.GetString());
      auto it = a.FindMember(m.name);
      if (it == a.MemberEnd())
        out.push_back(child + ": expected " + shortJson(m.value) + ", missing");
      else
        diffInto(m.value, it->value, child, out);
    }
    for (const auto& m : a.GetObject())
      if (!e.HasMember(m.name))
        out.push_back(path + "/" + engine::escapePointerToken(m.name.GetString()) +
                      ": unexpected " + shortJson(m.value));
    return;
  }
  if (e.IsArray() && a.IsArray()) {
    const auto n = std::max(e.Size(), a.Size());
    for (rapidjson::SizeType i = 0; i < n; ++i) {
      const std::string child = path + "/" + std::to_string(i);
      if (i >= a.Size())
        out.push_back(child + ": expected " + shortJson(e[i]) + ", missing");
      else if (i >= e.Size())
        out.push_back(child + ": unexpected " + shortJson(a[i]));
      else
        diffInto(e[i], a[i], child, out);
    }
    return;
  }
  if (e != a)
    out.push_back((path.empty() ? "/" : path) + ": expected " + shortJson(e) + ", got " +
                  shortJson(a));
}

}  // namespace

std::string shortJson(const Value& v, std::size_t max) {
  std::string s = toJson(v, false);
  if (s.size() > max) s = s.substr(0, max - 3) + "...";
  return s;
}

std::vector<std::string> jsonDiff(const Value& expected, const Value& actual, std::size_t limit) {
  std::vector<std::string> all;
  diffInto(expected, actual, "", all);
  if (all.size() <= limit) return all;
  const auto more = all.size() - limit;
  all.resize(limit);
  all.push_back("... and " + std::to_string(more) + " more difference(s)");
  return all;
}

}  // namespace gpua::authoring
