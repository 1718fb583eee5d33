// Where a policy picks namespaces by their labels. The admission request does not carry
// namespace labels: the server learns them from the cluster watch (or --usage-from), so without
// one these rules match no namespace. `serve` warns about them at start-up.
#pragma once

#include <string>
#include <vector>

#include "policy/policy_set.hpp"

namespace gpua::policy {

// Key paths of every rule that selects namespaces by labels, e.g. "spec.rollout[0].namespaces",
// "spec.quotas[1].namespaces", "spec.classes[2].allowedNamespaces".
std::vector<std::string> namespaceLabelRules(const PolicySet& policy);

}  // namespace gpua::policy
