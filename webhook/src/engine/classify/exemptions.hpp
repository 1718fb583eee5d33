// Exemptions by container image: from the whole policy (spec.exempt.images, or a
// spec.ruleExemptions entry without rules) and from single rules (spec.ruleExemptions). A pod
// is covered when every container and init container runs a matching image, so that an
// exempt sidecar never shelters the GPU container beside it.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "engine/core/decision.hpp"
#include "engine/pod/pod_view.hpp"
#include "kube/label_selector.hpp"
#include "policy/policy_set.hpp"

namespace gpua::engine {

// Why the pod is exempt from the whole policy ("" when it is not).
std::string policyExemption(const PodView& pod, std::string_view namespaceName,
                            const kube::Labels& namespaceLabels, const policy::PolicySet& policy);

// Removes the violations of rules the pod is exempt from.
void dropExemptViolations(const PodView& pod, std::string_view namespaceName,
                          const kube::Labels& namespaceLabels, const policy::PolicySet& policy,
                          Violations& violations);

}  // namespace gpua::engine
