// A fixed usage snapshot from files (`serve --usage-from`): the output of
// `kubectl get pods -A -o json` (and namespaces), for demos and offline runs. The pods are
// counted again whenever the policy changes, since classes and GPU-equivalents depend on it.
#pragma once

#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "cluster/cluster_usage_source.hpp"
#include "engine/context/usage.hpp"

namespace gpua::cluster {

class FileUsageSource final : public engine::UsageSource {
 public:
  // Reads the files now: throws UsageFileError naming the file when one cannot be used.
  FileUsageSource(std::vector<std::string> paths, PolicyProvider policy);

  // Recounts under a new policy; if the files became unreadable, keeps the last snapshot.
  std::shared_ptr<const engine::UsageSnapshot> current() const override;
  bool synced() const override { return true; }

 private:
  std::vector<std::string> paths_;
  PolicyProvider policy_;
  mutable std::mutex mutex_;
  mutable std::shared_ptr<const policy::PolicySet> countedWith_;
  mutable std::shared_ptr<const engine::UsageSnapshot> snapshot_;
};

}  // namespace gpua::cluster
