#include "cluster/file_usage_source.hpp"

#include "inventory/usage_file.hpp"

namespace gpua::cluster {

namespace {

std::shared_ptr<const policy::PolicySet> policyOf(const PolicyProvider& provider) {
  auto p = provider ? provider() : nullptr;
  return p ? p : std::make_shared<const policy::PolicySet>();
}

}  // namespace

FileUsageSource::FileUsageSource(std::vector<std::string> paths, PolicyProvider policy)
    : paths_(std::move(paths)), policy_(std::move(policy)), countedWith_(policyOf(policy_)) {
  snapshot_ = std::make_shared<const engine::UsageSnapshot>(
      inventory::usageFromFiles(paths_, *countedWith_));
}

std::shared_ptr<const engine::UsageSnapshot> FileUsageSource::current() const {
  auto latest = policyOf(policy_);
  std::lock_guard lock(mutex_);
  if (latest != countedWith_) {
    countedWith_ = latest;  // also on failure: one attempt per policy, not one per request
    try {
      snapshot_ =
          std::make_shared<const engine::UsageSnapshot>(inventory::usageFromFiles(paths_, *latest));
    } catch (const inventory::UsageFileError&) {
      // The files were good at startup; counting them under the old policy beats none.
    }
  }
  return snapshot_;
}

}  // namespace gpua::cluster
