// What the authoring commands know of the cluster: GPU usage (namespace labels, units in use)
// and node supply, each empty, unknown, or read from `kubectl get ... -o json` dumps. Reading the
// dumps is the cluster adapter's work (its decoders count exactly as the live watch does), so
// the library asks for a SnapshotReader and the binary supplies the one built on cluster/: the
// authoring library stays below the adapter and its tests can hand in fixed snapshots.
#pragma once

#include <string>
#include <vector>

#include "engine/context/supply.hpp"
#include "engine/context/usage.hpp"
#include "policy/policy_set.hpp"

namespace gpua::authoring {

class SnapshotReader {
 public:
  virtual ~SnapshotReader() = default;

  // Usage from pod lists (and namespace lists, for labels). Throws InputError naming the file.
  virtual engine::UsageSnapshot usage(const std::vector<std::string>& files,
                                      const policy::PolicySet& policy) const = 0;

  // The nodes of `nodesFiles`, with allocated units and the pending queue from the pod lists
  // among `podsFiles` and, with `dra`, the GPU devices of their ResourceSlices, summarized for
  // `policy`. Throws InputError naming the file.
  virtual engine::SupplySnapshot supply(const std::vector<std::string>& nodesFiles,
                                        const std::vector<std::string>& podsFiles,
                                        const policy::PolicySet& policy,
                                        const engine::DraObjects* dra = nullptr) const = 0;

  // The DRA objects (DeviceClasses, ResourceClaims, ResourceClaimTemplates, ResourceSlices) of
  // `files` into `usage`: pods' claims resolve against them, and the claims' GPUs count in
  // usage as the live watch counts them. Throws InputError naming the file.
  virtual void addDra(const std::vector<std::string>& files, const policy::PolicySet& policy,
                      engine::UsageSnapshot& usage) const = 0;
};

// No usage given: quotas are checked against an empty cluster (available, nothing in use).
engine::UsageSnapshot emptyUsage();

// Usage unknown: quota checks follow the policy's quotaUnavailable (fail-open/fail-closed).
engine::UsageSnapshot unavailableUsage(std::string reason);

}  // namespace gpua::authoring
