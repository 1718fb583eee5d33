#include "policy/lint_warnings.hpp"

#include <string>
#include <vector>

namespace gpua::policy {

namespace {

// The class's effects in require mode that belong to its GPUs (resourceRequests follows the
// containers rules' scope instead, so it judges CPU pods too).
std::vector<std::string> gpuEffectsRequired(const Effects& fx) {
  std::vector<std::string> out;
  const auto add = [&](EffectMode m, const char* name) {
    if (m == EffectMode::Require) out.emplace_back(name);
  };
  add(fx.nodePlacement, "nodePlacement");
  add(fx.toleration, "toleration");
  add(fx.priorityClass, "priorityClass");
  add(fx.runtimeClass, "runtimeClass");
  add(fx.resourceName, "resourceName");
  return out;
}

}  // namespace

void warnUnjudgedRequireEffects(const Draft& draft, Diagnostics& warnings) {
  for (std::size_t i = 0; i < draft.set.classes.size() && i < draft.classes.size(); ++i) {
    const WorkloadClass& c = draft.set.classes[i];
    const std::vector<std::string> required = gpuEffectsRequired(c.effects);
    if (required.empty()) continue;
    const bool forbidden = c.gpus.request == GpuRequest::Forbidden;
    if (!forbidden && c.cpuPools.empty()) continue;
    SourceLoc at = draft.classes[i].node;
    at.keyPath += ".effects";
    report(warnings, at,
           "effects in require mode (" + joinNames(required) + ") judge GPU pods only, and class " +
               c.name + (forbidden ? " takes no GPU pods" : " also places pods without GPUs") +
               ": " + (forbidden ? "its" : "those") +
               " pods get their CPU pools' placement, tolerations, priority and runtime class "
               "written as in mutate mode",
           forbidden ? "drop the require effects of this class, or write its placement into "
                       "its pods' manifests and remove cpuPools"
                     : "expect the CPU pods to be mutated, or give them a class of their own");
  }
}

}  // namespace gpua::policy
