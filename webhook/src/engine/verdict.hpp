// From violations to a verdict: which rollout mode applies to the namespace, and what that
// mode makes of the violations (denial, warnings, audit annotations).
#pragma once

#include <string_view>

#include "engine/core/decision.hpp"
#include "kube/label_selector.hpp"
#include "policy/policy_set.hpp"

namespace gpua::engine {

// The first rollout rule whose namespace selector matches; Enforce when none does.
policy::Mode rolloutMode(const policy::PolicySet& policy, std::string_view namespaceName,
                         const kube::Labels& namespaceLabels);

// Fills denial, warnings and auditAnnotations from decision.violations, decision.mode and
// decision.changes. A denied decision carries no patch. quota-unavailable is enforced in
// every mode: the policy chose to fail closed.
void applyVerdict(Decision& decision);

}  // namespace gpua::engine
