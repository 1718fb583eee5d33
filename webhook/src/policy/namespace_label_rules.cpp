#include "policy/namespace_label_rules.hpp"

namespace gpua::policy {

namespace {

bool usesLabels(const std::optional<NamespaceSelector>& s) {
  return s && !s->labels.empty();
}

std::string indexed(const char* list, std::size_t i) {
  return std::string("spec.") + list + "[" + std::to_string(i) + "]";
}

void addMatchRules(const std::vector<MatchRule>& rules, const std::string& prefix,
                   std::vector<std::string>& out) {
  for (std::size_t r = 0; r < rules.size(); ++r)
    if (usesLabels(rules[r].namespaces))
      out.push_back(prefix + "[" + std::to_string(r) + "].namespaces");
}

}  // namespace

std::vector<std::string> namespaceLabelRules(const PolicySet& policy) {
  std::vector<std::string> out;
  if (!policy.exemptNamespaces.labels.empty()) out.push_back("spec.exempt");
  for (std::size_t i = 0; i < policy.classes.size(); ++i) {
    const auto& c = policy.classes[i];
    const std::string at = indexed("classes", i);
    if (usesLabels(c.allowedNamespaces)) out.push_back(at + ".allowedNamespaces");
    addMatchRules(c.match.any, at + ".match.any", out);
    addMatchRules(c.match.all, at + ".match.all", out);
  }
  for (std::size_t i = 0; i < policy.skip.size(); ++i)
    if (usesLabels(policy.skip[i].match.namespaces))
      out.push_back(indexed("skip", i) + ".match.namespaces");
  for (std::size_t i = 0; i < policy.quotas.size(); ++i)
    if (!policy.quotas[i].namespaces.labels.empty())
      out.push_back(indexed("quotas", i) + ".namespaces");
  for (std::size_t i = 0; i < policy.rollout.size(); ++i)
    if (usesLabels(policy.rollout[i].namespaces))
      out.push_back(indexed("rollout", i) + ".namespaces");
  for (std::size_t i = 0; i < policy.ruleExemptions.size(); ++i)
    if (usesLabels(policy.ruleExemptions[i].namespaces))
      out.push_back(indexed("ruleExemptions", i) + ".namespaces");
  for (std::size_t i = 0; i < policy.namespaceRules.size(); ++i)
    if (!policy.namespaceRules[i].namespaces.labels.empty())
      out.push_back(indexed("namespaceRules", i) + ".namespaces");
  return out;
}

}  // namespace gpua::policy
