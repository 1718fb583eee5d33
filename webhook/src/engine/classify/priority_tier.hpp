// The priority class a classified pod runs with, and what spec.priorityTiers says about it:
// its value, its preemptionPolicy, and which tiers may preempt it. Review shows this, and a
// tier's requireCheckpoint applies through it.
#pragma once

#include <string>
#include <string_view>

#include "engine/pod/pod_view.hpp"
#include "policy/policy_set.hpp"

namespace gpua::engine {

// The pod's priorityClassName after mutation: the class's when the engine sets it (the pod
// chose none, carries the global default, or the class overrides), else the pod's own. Empty
// when neither names one.
std::string_view effectivePriorityClass(const PodView& pod, const policy::WorkloadClass& cls,
                                        const policy::PolicySet& policy, bool placed);

// "gpu-training (value 10000, preemptionPolicy PreemptLowerPriority; preemptible by class
// inference-large (gpu-inference) on pool train-h100)"; "gpu-x (no priority tier in the
// policy)"; "" without a priority class. Preemptors are the classes of higher tiers with
// PreemptLowerPriority that share a pool with `cls`.
std::string describePriority(std::string_view priorityClass, const policy::WorkloadClass& cls,
                             const policy::PolicySet& policy);

}  // namespace gpua::engine
