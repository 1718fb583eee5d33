// Image patterns (match rules, spec.exempt.images) and spec.ruleExemptions: exemptions from one
// rule, or from the whole policy, by the images a pod runs (Gatekeeper's exemptImages).
#include <algorithm>

#include "policy/edit_distance.hpp"
#include "policy/parse.hpp"
#include "policy/rule_ids.hpp"

namespace gpua::policy {

namespace {

// Why a pattern cannot match as written, or "" when it is fine.
std::string patternProblem(const std::string& p) {
  if (p.find_first_of(" \t\r\n") != std::string::npos) return "an image pattern has no spaces";
  const auto star = p.find('*');
  if (star != std::string::npos && star + 1 != p.size())
    return "'*' is only allowed at the end of an image pattern (a prefix)";
  if (p.find("://") != std::string::npos) return "an image reference has no URL scheme";
  return {};
}

std::vector<std::string> ruleIds(YamlReader& r, const YAML::Node& node, const std::string& path) {
  std::vector<std::string> out;
  if (!r.expectList(node, path)) return out;
  for (std::size_t i = 0; i < node.size(); ++i) {
    const std::string at = indexPath(path, i);
    auto id = r.name(node[i], at);
    if (!id) continue;
    const auto& known = knownRuleIds();
    if (std::find(known.begin(), known.end(), *id) == known.end()) {
      r.error(node[i], at, "unknown rule '" + *id + "'", suggestion(*id, known));
      continue;
    }
    out.push_back(*id);
  }
  return out;
}

void parseRuleExemption(YamlReader& r, const YAML::Node& node, const std::string& path,
                        Draft& draft) {
  MapReader m(r, node, path, {"rules", "images", "namespaces"});
  if (!m.valid()) return;
  RuleExemption e;
  if (m.has("rules")) e.rules = ruleIds(r, m.get("rules"), m.path("rules"));
  // By images, by namespaces, or both (a namespace exempt from one rule, say a field guard).
  if (!m.has("images") && !m.has("namespaces"))
    r.error(node, path, "a rule exemption needs images, namespaces or both",
            "images: pods whose every container runs one; namespaces: pods in those namespaces");
  if (m.has("images")) e.images = parseImagePatterns(r, m.get("images"), m.path("images"));
  if (m.has("namespaces"))
    e.namespaces = parseNamespaceSelector(r, m.get("namespaces"), m.path("namespaces"));
  if (m.has("rules") && e.rules.empty() && m.get("rules").IsSequence() &&
      m.get("rules").size() == 0)
    r.error(m.get("rules"), m.path("rules"), "empty rule list",
            "name the rules to exempt from, or omit rules to exempt from the whole policy");
  if (!e.images.empty() || e.namespaces) draft.set.ruleExemptions.push_back(std::move(e));
}

}  // namespace

std::vector<std::string> parseImagePatterns(YamlReader& r, const YAML::Node& node,
                                            const std::string& path) {
  std::vector<std::string> out;
  if (!r.expectList(node, path)) return out;
  if (node.size() == 0) {
    r.error(node, path, "empty image list", "list images (exact, or a prefix ending in '*')");
    return out;
  }
  for (std::size_t i = 0; i < node.size(); ++i) {
    const std::string at = indexPath(path, i);
    auto p = r.name(node[i], at);
    if (!p) continue;
    if (const std::string problem = patternProblem(*p); !problem.empty()) {
      r.error(node[i], at, problem + ": '" + *p + "'",
              "write an image exactly (nvcr.io/nvidia/pytorch:24.01-py3) or a prefix ending in "
              "'*' (nvcr.io/nvidia/*)");
      continue;
    }
    out.push_back(*p);
  }
  return out;
}

void parseRuleExemptions(YamlReader& r, const YAML::Node& node, const std::string& path,
                         Draft& draft) {
  if (!r.expectList(node, path)) return;
  for (std::size_t i = 0; i < node.size(); ++i)
    parseRuleExemption(r, node[i], indexPath(path, i), draft);
}

}  // namespace gpua::policy
