// spec.namespaceRules: priority and runtime classes allowed (or a priority class, or labels,
// required) for the classified pods of some namespaces (`appliesTo`), on top of each class's.
#include "policy/parse.hpp"

namespace gpua::policy {

namespace {

void parseNamespaceRule(YamlReader& r, const YAML::Node& node, const std::string& path,
                        Draft& draft) {
  MapReader m(r, node, path,
              {"namespaces", "priorityClassNames", "runtimeClassNames", "requirePriorityClass",
               "appliesTo", "requiredLabels"});
  if (!m.valid()) return;
  NamespaceRule rule;
  std::optional<NamespaceSelector> sel;
  if (m.require("namespaces"))
    sel = parseNamespaceSelector(r, m.get("namespaces"), m.path("namespaces"));
  if (m.has("priorityClassNames"))
    rule.priorityClassNames =
        r.stringList(m.get("priorityClassNames"), m.path("priorityClassNames"));
  if (m.has("runtimeClassNames"))
    rule.runtimeClassNames = r.stringList(m.get("runtimeClassNames"), m.path("runtimeClassNames"));
  if (m.has("requirePriorityClass"))
    rule.requirePriorityClass =
        r.boolean(m.get("requirePriorityClass"), m.path("requirePriorityClass")).value_or(false);
  if (m.has("requiredLabels"))
    rule.requiredLabels = parseRequiredLabels(r, m.get("requiredLabels"), m.path("requiredLabels"));
  if (m.has("appliesTo"))
    rule.appliesTo =
        parseRuleScope(r, m.get("appliesTo"), m.path("appliesTo")).value_or(RuleScope::PlacedPods);
  const bool setsNothing = rule.priorityClassNames.empty() && rule.runtimeClassNames.empty() &&
                           !m.has("requirePriorityClass") && !m.has("requiredLabels");
  if (setsNothing)
    r.error(node, path, "namespace rule sets nothing",
            "set priorityClassNames, runtimeClassNames, requirePriorityClass or requiredLabels");
  if (!sel || setsNothing) return;
  rule.namespaces = *sel;
  draft.set.namespaceRules.push_back(std::move(rule));
}

}  // namespace

void parseNamespaceRules(YamlReader& r, const YAML::Node& node, const std::string& path,
                         Draft& draft) {
  if (!r.expectList(node, path)) return;
  for (std::size_t i = 0; i < node.size(); ++i)
    parseNamespaceRule(r, node[i], indexPath(path, i), draft);
}

}  // namespace gpua::policy
