#include "authoring/cluster_snapshots.hpp"

namespace gpua::authoring {

engine::UsageSnapshot emptyUsage() {
  engine::UsageSnapshot u;
  u.available = true;
  return u;
}

engine::UsageSnapshot unavailableUsage(std::string reason) {
  engine::UsageSnapshot u;
  u.available = false;
  u.unavailableReason = std::move(reason);
  return u;
}

}  // namespace gpua::authoring
