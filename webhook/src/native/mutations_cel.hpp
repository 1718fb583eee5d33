// The webhook's per-pod mutations (engine/mutate) as MutatingAdmissionPolicy JSONPatch CEL, one
// policy per effect: the same ops on the same conditions, so that the pod the apiserver stores
// is the one the webhook would store, each policy writes nothing on a pod the webhook already
// mutated, and the webhook writes nothing on a pod these policies mutated. Reads the variables
// of podVariables() (native/pod_cel.hpp).
#pragma once

#include <string>
#include <vector>

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

// What the webhook writes that no compiled policy does, for this policy, each with why.
std::vector<std::string> uncompiledMutations(const policy::PolicySet& policy);

}  // namespace gpua::native
