#include "server/webhook_supply.hpp"

namespace gpua::server {

namespace {

std::shared_ptr<const engine::SupplySnapshot> unavailable(const char* reason) {
  auto s = std::make_shared<engine::SupplySnapshot>();
  s->unavailableReason = reason;
  return s;
}

}  // namespace

std::shared_ptr<const engine::SupplySnapshot> SupplyForPolicy::get(
    const std::shared_ptr<const policy::PolicySet>& policy) const {
  static const auto noSource = unavailable("no node source");
  static const auto notListed = unavailable("nodes not listed yet");
  if (!source_) return noSource;
  auto raw = source_->currentSupply();
  if (!raw) return notListed;
  if (!raw->available || raw->policyRevision == policy->revision) return raw;
  const std::lock_guard lock(mutex_);
  if (raw_ != raw || policy_ != policy) {
    auto folded = std::make_shared<engine::SupplySnapshot>(
        engine::summarizeSupply(static_cast<const engine::NodeInventory&>(*raw), *policy));
    folded->available = raw->available;
    raw_ = std::move(raw);
    policy_ = policy;
    summarized_ = std::move(folded);
  }
  return summarized_;
}

}  // namespace gpua::server
