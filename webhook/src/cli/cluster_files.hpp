// The authoring library's SnapshotReader on the cluster adapter's file readers: usage from
// `kubectl get pods -A -o json` (and namespace lists), node supply from `kubectl get nodes -o
// json`, decoded and counted exactly as the live watch does. The binary is the one place that
// links both, so this is where they meet.
#pragma once

#include "authoring/cluster_snapshots.hpp"

namespace gpua::cli {

class ClusterFileReader final : public authoring::SnapshotReader {
 public:
  engine::UsageSnapshot usage(const std::vector<std::string>& files,
                              const policy::PolicySet& policy) const override;
  // The queue's wait times are measured from now.
  engine::SupplySnapshot supply(const std::vector<std::string>& nodesFiles,
                                const std::vector<std::string>& podsFiles,
                                const policy::PolicySet& policy,
                                const engine::DraObjects* dra = nullptr) const override;
  void addDra(const std::vector<std::string>& files, const policy::PolicySet& policy,
              engine::UsageSnapshot& usage) const override;
};

}  // namespace gpua::cli
