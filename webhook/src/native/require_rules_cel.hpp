// A class's effects in require mode (engine/validate/require_effects.cpp) as CEL: the pod must
// already carry what the webhook would otherwise write, and the message names what to write,
// as the mutation would write it. What a mutation writes is what native/mutations_cel.cpp
// compiles; the conditions are shared with it.
#pragma once

#include <vector>

#include "native/rule_cel.hpp"
#include "policy/policy_set.hpp"

namespace gpua::native {

// checkRequiredEffects() for the pods of `cls` (variables.cls already tested), in the engine's
// order: resource-requests-required, resource-name-required, node-placement-required,
// toleration-required, priority-class-required, runtime-class-required. Effects the class
// writes (or leaves alone) give no list.
std::vector<RuleList> requiredEffectRules(const policy::PolicySet& policy,
                                          const policy::WorkloadClass& cls);

// checkRequiredContainerDefaults() alone: the rule the allPods pseudo-class judges too.
std::vector<RuleList> requiredContainerDefaults(const policy::PolicySet& policy,
                                                const policy::WorkloadClass& cls);

}  // namespace gpua::native
