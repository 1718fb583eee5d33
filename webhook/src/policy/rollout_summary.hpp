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

// Why replacing `before` by `after` looks like an accident rather than a decision, or "": the
// new policy has no `rollout` section at all, so every namespace would be enforced, where the
// old one declared warn or audit namespaces. A file cut short (truncated while being written,
// or left half-copied) loses its trailing rollout block and still parses. A deliberate switch
// writes the section (`rollout: []` or `- mode: enforce`).
std::string suspectRolloutLoss(const PolicySet& before, const PolicySet& after);

}  // namespace gpua::policy
