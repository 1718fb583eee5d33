// Checks the types of the pod fields the engine reads or patches, where Kubernetes has a fixed
// schema. A wrong type becomes an "invalid-pod" violation naming the field, and the engine then
// leaves the pod unpatched instead of guessing.
#pragma once

#include <vector>

#include "engine/core/decision.hpp"
#include "engine/pod/pod_view.hpp"

namespace gpua::engine {

// Appends one violation per ill-typed field; returns true when the shape is sound.
bool checkPodShape(const PodView& pod, Violations& violations);

}  // namespace gpua::engine
