// Namespace selectors and match rules: the vocabulary every other section uses to pick pods
// and namespaces.
#include "policy/parse.hpp"

namespace gpua::policy {

namespace {

std::optional<kube::SelectorRequirement> parseRequirement(YamlReader& r, const YAML::Node& node,
                                                    const std::string& path) {
  MapReader m(r, node, path, {"key", "operator", "values"});
  if (!m.valid()) return std::nullopt;
  const bool hasKey = m.require("key");  // both asked, so both missing keys are reported
  const bool complete = m.require("operator") && hasKey;
  kube::SelectorRequirement req;
  auto key = complete ? r.name(m.get("key"), m.path("key")) : std::nullopt;
  std::optional<kube::SelectorOperator> op;
  if (complete)
    op = r.enumeration<kube::SelectorOperator>(m.get("operator"), m.path("operator"),
                                         {{"In", kube::SelectorOperator::In},
                                          {"NotIn", kube::SelectorOperator::NotIn},
                                          {"Exists", kube::SelectorOperator::Exists},
                                          {"DoesNotExist", kube::SelectorOperator::DoesNotExist}});
  // An empty label value is a value (`In [""]`), as Kubernetes reads it.
  if (m.has("values")) req.values = r.stringValues(m.get("values"), m.path("values"));
  if (!key || !op) return std::nullopt;
  req.key = *key;
  req.op = *op;
  // Same rule as Kubernetes: In/NotIn need values, Exists/DoesNotExist take none.
  const bool wantsValues = *op == kube::SelectorOperator::In || *op == kube::SelectorOperator::NotIn;
  if (wantsValues && req.values.empty()) {
    r.error(node, m.path("values"), "operator " + m.get("operator").Scalar() + " needs values");
    return std::nullopt;
  }
  if (!wantsValues && m.has("values")) {
    r.error(m.get("values"), m.path("values"),
            "operator " + m.get("operator").Scalar() + " takes no values");
    return std::nullopt;
  }
  return req;
}

}  // namespace

kube::LabelSelector parseLabelSelector(YamlReader& r, const MapReader& map) {
  kube::LabelSelector sel;
  if (map.has("matchLabels")) {
    for (auto& [k, v] : r.stringMap(map.get("matchLabels"), map.path("matchLabels")))
      sel.matchLabels.emplace(k, v);
  }
  if (map.has("matchExpressions") &&
      r.expectList(map.get("matchExpressions"), map.path("matchExpressions"))) {
    const YAML::Node list = map.get("matchExpressions");
    for (std::size_t i = 0; i < list.size(); ++i)
      if (auto req = parseRequirement(r, list[i], indexPath(map.path("matchExpressions"), i)))
        sel.matchExpressions.push_back(*req);
  }
  return sel;
}

std::vector<RequiredLabel> parseRequiredLabels(YamlReader& r, const YAML::Node& node,
                                               const std::string& path) {
  std::vector<RequiredLabel> out;
  if (!r.expectList(node, path)) return out;
  for (std::size_t i = 0; i < node.size(); ++i) {
    const std::string p = indexPath(path, i);
    RequiredLabel label;
    YAML::Node at = node[i];
    if (node[i].IsMap()) {
      MapReader m(r, node[i], p, {"key", "values"});
      if (!m.valid() || !m.require("key")) continue;
      auto key = r.name(m.get("key"), m.path("key"));
      if (!key) continue;
      label.key = *key;
      at = m.get("key");
      if (m.has("values")) {
        label.values = r.stringValues(m.get("values"), m.path("values"));
        if (label.values.empty())
          r.error(m.get("values"), m.path("values"), "empty value list",
                  "list the allowed values, or omit values to accept any");
      }
    } else {
      auto key = r.name(node[i], p);
      if (!key) continue;
      label.key = *key;
    }
    bool duplicate = false;
    for (const auto& seen : out) duplicate = duplicate || seen.key == label.key;
    if (duplicate) {
      r.error(at, p, "label '" + label.key + "' is listed twice");
      continue;
    }
    out.push_back(std::move(label));
  }
  return out;
}

std::optional<NamespaceSelector> parseNamespaceSelector(YamlReader& r, const YAML::Node& node,
                                                        const std::string& path) {
  NamespaceSelector sel;
  if (node.IsSequence()) {  // shorthand: a list of namespace names
    sel.names = r.stringList(node, path);
  } else {
    MapReader m(r, node, path, {"names", "matchLabels", "matchExpressions"});
    if (!m.valid()) return std::nullopt;
    if (m.has("names")) sel.names = r.stringList(m.get("names"), m.path("names"));
    sel.labels = parseLabelSelector(r, m);
  }
  if (sel.empty()) {
    // An empty selector would silently mean "every namespace": make that explicit instead.
    r.error(node, path, "empty namespace selector",
            "list names, matchLabels or matchExpressions; omit the key to mean every namespace");
    return std::nullopt;
  }
  return sel;
}

std::optional<MatchRule> parseMatchRule(YamlReader& r, const YAML::Node& node,
                                        const std::string& path) {
  const std::size_t errorsBefore = r.diagnostics().size();
  MapReader m(r, node, path,
              {"labels", "labelKeys", "annotations", "annotationKeys", "namespaces", "ownerKinds",
               "schedulerNames", "resources", "images", "deviceClasses"});
  if (!m.valid()) return std::nullopt;
  MatchRule rule;
  if (m.has("labels")) rule.labels = r.stringMap(m.get("labels"), m.path("labels"));
  if (m.has("labelKeys")) rule.labelKeys = r.stringList(m.get("labelKeys"), m.path("labelKeys"));
  if (m.has("annotations"))
    rule.annotations = r.stringMap(m.get("annotations"), m.path("annotations"));
  if (m.has("annotationKeys"))
    rule.annotationKeys = r.stringList(m.get("annotationKeys"), m.path("annotationKeys"));
  if (m.has("namespaces"))
    rule.namespaces = parseNamespaceSelector(r, m.get("namespaces"), m.path("namespaces"));
  if (m.has("ownerKinds"))
    rule.ownerKinds = r.stringList(m.get("ownerKinds"), m.path("ownerKinds"));
  if (m.has("schedulerNames"))
    rule.schedulerNames = r.stringList(m.get("schedulerNames"), m.path("schedulerNames"));
  if (m.has("resources")) rule.resources = r.stringList(m.get("resources"), m.path("resources"));
  if (m.has("images")) rule.images = parseImagePatterns(r, m.get("images"), m.path("images"));
  if (m.has("deviceClasses"))
    rule.deviceClasses = r.stringList(m.get("deviceClasses"), m.path("deviceClasses"));
  if (rule.empty()) {
    // Only report when nothing inside was broken: a rule emptied by its own errors is noise.
    if (r.diagnostics().size() == errorsBefore)
      r.error(node, path, "empty matcher: a rule must test at least one thing",
              "add labels, labelKeys, annotations, annotationKeys, namespaces, ownerKinds, "
              "schedulerNames, resources, images or deviceClasses");
    return std::nullopt;
  }
  return rule;
}

}  // namespace gpua::policy
