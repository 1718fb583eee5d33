// `effects`: whether each effect of a class is written by the webhook (mutate) or demanded from
// the pod (require). spec.effects is the cluster default; a class's `effects` overrides it per
// effect, and the loader resolves the result into WorkloadClass::effects.
#include "policy/parse.hpp"

namespace gpua::policy {

namespace {

constexpr const char* kEffectKeys[] = {"toleration",   "nodePlacement", "priorityClass",
                                       "runtimeClass", "resourceName",  "resourceRequests"};

std::optional<EffectMode> parseMode(YamlReader& r, const YAML::Node& node,
                                    const std::string& path) {
  return r.enumeration<EffectMode>(
      node, path, {{"mutate", EffectMode::Mutate}, {"require", EffectMode::Require}});
}

std::optional<EffectMode>* slot(EffectOverrides& o, std::string_view key) {
  if (key == "toleration") return &o.toleration;
  if (key == "nodePlacement") return &o.nodePlacement;
  if (key == "priorityClass") return &o.priorityClass;
  if (key == "runtimeClass") return &o.runtimeClass;
  if (key == "resourceRequests") return &o.resourceRequests;
  return &o.resourceName;
}

void overlay(Effects& e, const EffectOverrides& o) {
  e.toleration = o.toleration.value_or(e.toleration);
  e.nodePlacement = o.nodePlacement.value_or(e.nodePlacement);
  e.priorityClass = o.priorityClass.value_or(e.priorityClass);
  e.runtimeClass = o.runtimeClass.value_or(e.runtimeClass);
  e.resourceName = o.resourceName.value_or(e.resourceName);
  e.resourceRequests = o.resourceRequests.value_or(e.resourceRequests);
}

}  // namespace

EffectOverrides parseEffects(YamlReader& r, const YAML::Node& node, const std::string& path) {
  EffectOverrides out;
  if (node.IsScalar()) {  // shorthand: one mode for every effect
    if (auto mode = parseMode(r, node, path))
      for (const char* key : kEffectKeys) *slot(out, key) = *mode;
    return out;
  }
  MapReader m(r, node, path,
              std::vector<std::string>(std::begin(kEffectKeys), std::end(kEffectKeys)));
  if (!m.valid()) return out;
  for (const char* key : kEffectKeys)
    if (m.has(key)) *slot(out, key) = parseMode(r, m.get(key), m.path(key));
  return out;
}

void parseDefaultEffects(YamlReader& r, const YAML::Node& node, const std::string& path,
                         Draft& draft) {
  Effects defaults;
  overlay(defaults, parseEffects(r, node, path));
  draft.set.defaultEffects = defaults;
}

void resolveClassEffects(Draft& draft) {
  for (std::size_t i = 0; i < draft.set.classes.size() && i < draft.classes.size(); ++i) {
    Effects e = draft.set.defaultEffects;
    overlay(e, draft.classes[i].effects);
    draft.set.classes[i].effects = e;
  }
}

}  // namespace gpua::policy
