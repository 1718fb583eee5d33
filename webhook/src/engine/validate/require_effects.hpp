// Require instead of fix: the checks for a class whose effects are in `require` mode, and the
// allowed-value lists (runtime classes, namespace rules, "a priority class is required").
//
// A required effect is judged by running its mutator on the pod without keeping the patch: a
// pod the mutator would change lacks (or contradicts) the effect, and the ops it would have
// written are the exact fix the message gives. So a pod passes `require` exactly when `mutate`
// would leave it alone, and the output of `mutate` always passes `require`.
#pragma once

#include <vector>

#include "engine/core/decision.hpp"
#include "engine/validate/validate.hpp"

namespace gpua::engine {

// toleration-required, node-placement-required, priority-class-required,
// runtime-class-required, resource-name-required, resource-requests-required (GPU pods of the
// class only).
void checkRequiredEffects(const ValidationInput& in, Violations& out);

// resource-requests-required alone: the container defaults in require mode, on the pods of the
// containers rules' scope (part of checkRequiredEffects; alone for the allPods rules).
void checkRequiredContainerDefaults(const ValidationInput& in, Violations& out);

// runtime-class-not-allowed, priority-class-not-allowed (namespace rules), priority-class-missing,
// required-label-missing.
void checkAllowedValues(const ValidationInput& in, Violations& out);

}  // namespace gpua::engine
