// placement-conflict (engine/validate/placement_conflict) as CEL: a GPU pod whose own
// nodeSelector, spec.nodeName and required node affinity contradict every pool of its class.
// The engine's fold of the requirements on one node key (In lists intersected, NotIn lists
// united, Exists/DoesNotExist, Gt/Lt parsed as Go's strconv.ParseInt) is written once here and
// used by both the rule (ValidatingAdmissionPolicy) and the placement mutation, which leaves
// such a pod's placement as written, as the webhook does. The spec.nodeName form that reads the
// node's labels (supply) is not compiled.
#pragma once

#include <string>
#include <vector>

#include "native/pod_cel.hpp"
#include "policy/policy_set.hpp"

namespace gpua::native {

// The pod's placement as requirement lists, once for all classes (podVariables() declares them):
// placementAlways (its nodeSelector entries, then spec.nodeName) and placementTerms (each
// required nodeSelectorTerm's matchExpressions, then matchFields). None when no class of the
// policy can conflict.
std::vector<CelVariable> placementVariables(const policy::PolicySet& policy);

// A CEL bool: the pod's own placement contradicts every pool of class `cls` (for a GPU pod the
// engine judges: not validate-only, placement by node affinity). "" when the class cannot
// conflict (placement by nodeSelector, or no pool that selects nodes).
std::string placementConflictTest(const policy::PolicySet& policy,
                                  const policy::WorkloadClass& cls);

// The rule's violation list for a pod of class `cls`: [the webhook's message] or []; "" when
// the class cannot conflict.
std::string placementConflictViolations(const policy::PolicySet& policy,
                                        const policy::WorkloadClass& cls);

}  // namespace gpua::native
