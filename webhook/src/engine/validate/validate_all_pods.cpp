// The rules of scope allPods for a pod no class takes: spec.containers (appliesTo: allPods),
// its defaults demanded in require mode, and the namespace rules of that scope. The pod is
// judged with the allPods pseudo-class (PolicySet::allPodsRules), so every rule reads it the way
// it reads a class's pod and only rules of that scope apply (inRuleScope).
#include "engine/validate/require_effects.hpp"
#include "engine/validate/validate.hpp"

namespace gpua::engine {

void validateAllPodsRules(const ValidationInput& in, Violations& out) {
  validateContainerResources(in, out);
  checkRequiredContainerDefaults(in, out);
  checkAllowedValues(in, out);
}

}  // namespace gpua::engine
