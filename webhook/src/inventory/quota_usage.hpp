// GPU-equivalents used and allowed per quota, from a usage snapshot: what the quota metrics
// export and `gpu-admission status` prints. Counts as the engine's quota check does (usage
// per namespace and class from the same ledger).
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "engine/context/usage.hpp"
#include "policy/policy_set.hpp"

namespace gpua::inventory {

struct QuotaFigure {
  std::string quota;
  // "total" or "class:<name>"; per-namespace quotas prefix "namespace:<ns>" ("namespace:ml",
  // "namespace:ml/class:training"), since each namespace has its own budget there.
  std::string scope;
  double used = 0;
  std::optional<double> limit;  // absent: the quota sets no GPU-equivalent budget for the scope
  // Namespaces using the most of this scope, largest first (at most `topNamespaces`).
  std::vector<std::pair<std::string, double>> topNamespaces;
};

// One figure per quota and scope, in policy order. Namespaces are the snapshot's (labels from
// namespaceLabels; a namespace with usage but no known labels matches by name only).
std::vector<QuotaFigure> quotaFigures(const policy::PolicySet& policy,
                                      const engine::UsageSnapshot& usage,
                                      std::size_t topNamespaces = 3);

}  // namespace gpua::inventory
