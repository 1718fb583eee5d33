// The webhook's per-pod mutations (engine/mutate) as MutatingAdmissionPolicy JSONPatch CEL, one
// policy per effect: the same ops on the same conditions, so that the pod the apiserver stores
// is the one the webhook would store, each policy writes nothing on a pod the webhook already
// mutated, and the webhook writes nothing on a pod these policies mutated. Reads the variables
// of podVariables() (native/pod_cel.hpp).
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "engine/classify/class_placement.hpp"
#include "native/pod_cel.hpp"
#include "policy/policy_set.hpp"

namespace gpua::native {

struct CompiledMutation {
  std::string name;                    // the policy is gpu-admission-<name>
  std::string description;             // what it writes, for the report
  std::vector<CelVariable> variables;  // declared after podVariables()
  std::string patch;                   // CEL: list(JSONPatch)
};

// The mutations the policy makes that compile, in the engine's order; a mutation no class makes
// is left out.
std::vector<CompiledMutation> compiledMutations(const policy::PolicySet& policy);

// The builders the require-mode rules share (native/require_rules_cel.cpp): what a mutation
// would write is what a class that requires the effect demands.

// The class's GPU pools, in its order (engine/decide's poolsOf).
engine::PoolList classPools(const policy::WorkloadClass& cls, const policy::PolicySet& policy);

// mutate_tolerations: the taints of `pools` (each once) that no toleration of the CEL list
// `tols` tolerates, as the CEL list of `item(taint)` for each; "" when the pools have no taints.
std::string untoleratedTaints(const engine::PoolList& pools,
                              const std::function<std::string(const policy::Taint&)>& item);

// mutate_affinity: some pool of `pools` has every requirement implied by the pod's term `t` (a
// CEL term; "" = no term) with spec.nodeSelector (the CEL map `ns`); and the requirements of
// `pool` they do not imply, each as `item(requirement)`, as a CEL list.
std::string satisfied(const engine::PoolList& pools, const std::string& t);
std::string unimplied(const policy::Pool& pool, const std::string& t,
                      const std::function<std::string(const policy::NodeRequirementRef&)>& item);

// mutate_priority: the CEL condition under which the class's priority class is written (the pod
// names another one that is not its own choice); "" when the class has none.
std::string priorityChange(const policy::PolicySet& policy, const policy::WorkloadClass& cls);

// mutate_runtime: the runtime class written (the first pool's that has one), or null; and the
// CEL condition that the pod names one itself (then nothing is written).
const std::string* poolRuntimeClass(const engine::PoolList& pools);
std::string namesRuntimeClass();

// What the webhook writes that no compiled policy does, for this policy, each with why.
std::vector<std::string> uncompiledMutations(const policy::PolicySet& policy);

}  // namespace gpua::native
