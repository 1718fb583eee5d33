// The enforcement modes a policy gives namespaces, in words, so that a reload which changes
// them can say what changed ("namespaces legacy: audit", "every other namespace: enforce").
#pragma once

#include <string>
#include <vector>

#include "policy/policy_set.hpp"

namespace gpua::policy {

// One line per rollout rule in match order, then the fallback when no rule is a catch-all,
// and the exempt namespaces first when there are any.
std::vector<std::string> describeRollout(const PolicySet& p);

}  // namespace gpua::policy
