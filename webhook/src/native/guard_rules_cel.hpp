// The engine's guard rules as CEL, beside rules_cel's GPU rules: the placement guards of
// engine/validate/field_guards.cpp, the allowed values of engine/validate/allowed_values.cpp
// (runtime and priority classes, required labels, a priority class required), node-selector
// conflicts (validate_node_selector.cpp) and checkpoint declarations (validate_checkpoint.cpp).
// Each function mirrors one engine function, with the same findings in the same order and the
// same words; rules_cel's violationList() places them where engine/decide's evaluate() judges
// them.
#pragma once

#include <string>
#include <vector>

#include "native/rule_cel.hpp"
#include "policy/policy_set.hpp"

namespace gpua::native {

// checkPlacementGuards(): node-name-forbidden, node-selector-forbidden, node-affinity-forbidden,
// toleration-forbidden, on every judged pod; what the pod's class (variables.cls) writes or
// requires for it (its GPU pools for a GPU pod, its CPU pools for a pod it places) never counts.
// Empty when the policy guards no placement.
std::vector<RuleList> placementGuards(const policy::PolicySet& policy);

// checkAllowedValues() for the pods of class `cls` (to be judged only where variables.cls is
// its name): runtime-class-not-allowed and required-label-missing of the class, then per
// namespace rule priority-class-not-allowed, runtime-class-not-allowed and
// required-label-missing, then priority-class-missing.
std::vector<RuleList> allowedValues(const policy::PolicySet& policy,
                                    const policy::WorkloadClass& cls);

// checkAllowedValues() of the allPods rules (engine/decide's judgeByAllPodsRules), for the pods
// no class takes: GPU-less ones, and GPU pods when unclassifiedGpuPods allows them. Each list
// carries that condition.
std::vector<RuleList> allPodsAllowedValues(const policy::PolicySet& policy);

// checkNodeSelectorConflict() for the pods of `cls` that get its placement; "" when the class
// places by node affinity or overwrites conflicts.
std::string nodeSelectorConflict(const policy::PolicySet& policy, const policy::WorkloadClass& cls);

// checkCheckpoint() with validate_class_workload_rules' checkpointRule(): checkpoint-missing,
// checkpoint-dangling, checkpoint-invalid for the pods of `cls` that get its placement, by the
// class's requireCheckpoint or its priority tier's.
std::vector<RuleList> checkpoints(const policy::PolicySet& policy,
                                  const policy::WorkloadClass& cls);

}  // namespace gpua::native
