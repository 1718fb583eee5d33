// Allowed runtime classes per class, the namespace rules' allowed priority and runtime classes,
// "a priority class is required" and the required labels of both. Judged on the value the pod ends
// up with: its own, or the one the class writes in mutate mode.
#include "engine/classify/class_placement.hpp"
#include "engine/core/text.hpp"
#include "engine/validate/require_effects.hpp"
#include "policy/rule_ids.hpp"

namespace gpua::engine {

namespace rules = policy::rules;

namespace {

using policy::EffectMode;

bool listed(const std::vector<std::string>& names, std::string_view name) {
  for (const auto& n : names)
    if (n == name) return true;
  return false;
}

// The runtime class the pod's pools write: its class's GPU pools for a GPU pod, its CPU pools
// for a pod without GPUs the class places (an unplaced CPU pod gets none).
const std::string* poolRuntimeClass(const ValidationInput& in) {
  if (in.gpu.hasGpu) {
    for (const auto* pool : in.pools)
      if (pool->runtimeClassName) return &*pool->runtimeClassName;
    return nullptr;
  }
  if (!placesCpuPods(in.cls)) return nullptr;
  for (const auto* pool : cpuPoolsOf(in.cls, in.policy))
    if (pool->runtimeClassName) return &*pool->runtimeClassName;
  return nullptr;
}

// The priority class the pod will run with, "" for none (or the cluster's global default,
// which the Priority plugin writes into pods that chose nothing).
std::string_view effectivePriorityClass(const ValidationInput& in) {
  std::string_view name = in.pod.specString("priorityClassName");
  if (in.policy.globalDefaultPriorityClass && *in.policy.globalDefaultPriorityClass == name)
    name = {};
  const bool classWrites = in.cls.priorityClassName && getsClassPlacement(in.cls, in.gpu) &&
                           in.cls.effects.priorityClass == EffectMode::Mutate &&
                           (name.empty() || in.cls.overridePriorityClass);
  return classWrites ? std::string_view(*in.cls.priorityClassName) : name;
}

std::string_view effectiveRuntimeClass(const ValidationInput& in) {
  const std::string_view name = in.pod.specString("runtimeClassName");
  const std::string* pool = poolRuntimeClass(in);
  if (name.empty() && pool != nullptr && in.cls.effects.runtimeClass == EffectMode::Mutate)
    return *pool;
  return name;
}

// A runtime class the pod names itself must be its pools' or one the class allows (in require
// mode always; in mutate mode when the class lists any).
void checkClassRuntimeClass(const ValidationInput& in, Violations& out) {
  const std::string_view name = in.pod.specString("runtimeClassName");
  const std::string* pool = poolRuntimeClass(in);
  if (name.empty() || (pool != nullptr && *pool == name)) return;
  const bool restricted = !in.cls.allowedRuntimeClasses.empty() ||
                          (in.cls.effects.runtimeClass == EffectMode::Require && pool != nullptr);
  if (!restricted || listed(in.cls.allowedRuntimeClasses, name)) return;
  std::vector<std::string> allowed;
  if (pool != nullptr) allowed.push_back(*pool);
  for (const auto& a : in.cls.allowedRuntimeClasses) allowed.push_back(a);
  out.push_back({rules::kRuntimeClassNotAllowed,
                 in.pod.subject + " names runtimeClassName " + text::quoted(name) + " but class " +
                     in.cls.name + " allows only " + text::join(allowed) + ": set " +
                     in.pod.fieldPrefix + "spec.runtimeClassName: " + allowed.front()});
}

void checkNamespaceRule(const ValidationInput& in, const policy::NamespaceRule& rule,
                        Violations& out) {
  const std::string where = "namespace " + text::quoted(in.namespaceName);
  const std::string_view priority = effectivePriorityClass(in);
  if (!priority.empty() && !rule.priorityClassNames.empty() &&
      !listed(rule.priorityClassNames, priority))
    out.push_back({rules::kPriorityClassNotAllowed,
                   in.pod.subject + " would run with priorityClassName " + text::quoted(priority) +
                       " but " + where + " allows only " + text::join(rule.priorityClassNames) +
                       ": set " + in.pod.fieldPrefix + "spec.priorityClassName to one of them"});
  const std::string_view runtime = effectiveRuntimeClass(in);
  if (!runtime.empty() && !rule.runtimeClassNames.empty() &&
      !listed(rule.runtimeClassNames, runtime))
    out.push_back({rules::kRuntimeClassNotAllowed,
                   in.pod.subject + " would run with runtimeClassName " + text::quoted(runtime) +
                       " but " + where + " allows only " + text::join(rule.runtimeClassNames) +
                       ": set " + in.pod.fieldPrefix + "spec.runtimeClassName to one of them"});
}

void checkPriorityClassPresent(const ValidationInput& in, bool byClass, bool byNamespace,
                               const std::vector<std::string>& namespaceNames, Violations& out) {
  if (!effectivePriorityClass(in).empty()) return;
  // Required effects already say "set spec.priorityClassName: X" for this pod.
  if (in.cls.priorityClassName && in.cls.effects.priorityClass == EffectMode::Require) return;
  std::vector<std::string> choices = namespaceNames;
  for (const auto& a : in.cls.allowedPriorityClasses)
    if (namespaceNames.empty() || listed(namespaceNames, a)) choices.push_back(a);
  const std::string who = byNamespace && !byClass ? "namespace " + text::quoted(in.namespaceName)
                                                  : "class " + in.cls.name;
  out.push_back({rules::kPriorityClassMissing,
                 in.pod.subject + " names no priorityClassName, but " + who +
                     " requires one: set " + in.pod.fieldPrefix + "spec.priorityClassName" +
                     (choices.empty() ? std::string(" to the priority class of your tier")
                                      : " to one of " + text::join(choices))});
}

// requiredLabels of the class or of a namespace rule (`who`): one finding per rule that the pod's
// labels (a template's: with its controller's) do not meet, naming every label to fix.
void checkRequiredLabels(const ValidationInput& in, const std::vector<policy::RequiredLabel>& want,
                         const std::string& who, Violations& out) {
  std::vector<std::string> wrong, fixes;
  for (const auto& label : want) {
    bool found = false;
    const std::string_view value = in.pod.label(label.key, &found);
    if (found && (label.values.empty() || listed(label.values, value))) continue;
    wrong.push_back(found ? "label " + label.key + "=" + text::quoted(text::oneLine(value, 60))
                          : "no label " + label.key);
    fixes.push_back(label.key + (label.values.empty()
                                     ? std::string()
                                     : " (one of " + text::join(label.values) + ")"));
  }
  if (wrong.empty()) return;
  out.push_back({rules::kRequiredLabelMissing, in.pod.subject + " has " + text::join(wrong) +
                                                   ", but " + who + " requires it: set " +
                                                   in.pod.fieldPrefix + "metadata.labels " +
                                                   text::join(fixes)});
}

}  // namespace

void checkAllowedValues(const ValidationInput& in, Violations& out) {
  const bool classRules = inRuleScope(in.cls.appliesTo, in.cls, in.gpu);
  if (classRules) checkClassRuntimeClass(in, out);
  if (classRules && !in.cls.requiredLabels.empty())
    checkRequiredLabels(in, in.cls.requiredLabels, "class " + in.cls.name, out);
  bool namespaceRequires = false;
  std::vector<std::string> namespaceNames;
  for (const auto& rule : in.policy.namespaceRules) {
    if (!inRuleScope(rule.appliesTo, in.cls, in.gpu)) continue;
    if (!rule.namespaces.matches(in.namespaceName, in.namespaceLabels)) continue;
    checkNamespaceRule(in, rule, out);
    if (!rule.requiredLabels.empty())
      checkRequiredLabels(in, rule.requiredLabels, "namespace " + text::quoted(in.namespaceName),
                          out);
    namespaceRequires = namespaceRequires || rule.requirePriorityClass;
    for (const auto& n : rule.priorityClassNames)
      if (!listed(namespaceNames, n)) namespaceNames.push_back(n);
  }
  const bool classRequires = classRules && in.cls.requirePriorityClass;
  if (classRequires || namespaceRequires)
    checkPriorityClassPresent(in, classRequires, namespaceRequires, namespaceNames, out);
}

}  // namespace gpua::engine
