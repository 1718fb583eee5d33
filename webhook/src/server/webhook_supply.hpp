// The node supply a request decides with: the SupplySource's latest snapshot, summarized for
// the policy in force. A source may summarize itself (its snapshot then carries the policy's
// revision and passes through untouched); otherwise the first request after a node change or a
// policy reload folds it once and every later request reuses the result.
#pragma once

#include <memory>
#include <mutex>

#include "engine/context/supply.hpp"
#include "policy/policy_set.hpp"

namespace gpua::server {

class SupplyForPolicy {
 public:
  explicit SupplyForPolicy(std::shared_ptr<const engine::SupplySource> source)
      : source_(std::move(source)) {}

  // Never null; unavailable when there is no source or it has no nodes yet.
  std::shared_ptr<const engine::SupplySnapshot> get(
      const std::shared_ptr<const policy::PolicySet>& policy) const;

 private:
  std::shared_ptr<const engine::SupplySource> source_;
  mutable std::mutex mutex_;
  mutable std::shared_ptr<const engine::SupplySnapshot> raw_;  // what summarized_ was made from
  mutable std::shared_ptr<const policy::PolicySet> policy_;
  mutable std::shared_ptr<const engine::SupplySnapshot> summarized_;
};

}  // namespace gpua::server
