// The Prometheus export as an observer of the cluster client's inventory. On every tick it gets
// the queue events the supply ledger noted (drained every tick by the client, so they never pile
// up) and reads the rest at its own cadence: GE-seconds every geSecondsInterval, the pending,
// quota and pool gauges every gaugeInterval, following the published snapshots.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <vector>

#include "cluster/prometheus_export.hpp"
#include "engine/context/supply.hpp"
#include "engine/context/usage.hpp"
#include "inventory/ledger.hpp"
#include "inventory/supply_ledger.hpp"
#include "policy/policy_set.hpp"

namespace gpua::cluster {

// What the observer may read; each reading takes whatever lock the inventory needs.
struct InventoryReadings {
  std::function<std::vector<inventory::GeSeconds>()> geSeconds;
  std::function<std::vector<engine::PendingQueue>()> pending;
  std::function<std::shared_ptr<const engine::UsageSnapshot>()> usage;
  std::function<std::shared_ptr<const engine::SupplySnapshot>()> supply;
  std::function<std::shared_ptr<const policy::PolicySet>()> policy;
};

class InventoryExport {
 public:
  using Clock = std::chrono::steady_clock;

  InventoryExport(PrometheusExport& out, InventoryReadings readings,
                  std::chrono::milliseconds geSecondsInterval,
                  std::chrono::milliseconds gaugeInterval);

  void onTick(Clock::time_point now, const std::vector<inventory::ScheduleWait>& waits,
              const std::vector<inventory::StartFailure>& failures);

 private:
  void exportGauges();

  PrometheusExport& out_;
  InventoryReadings in_;
  std::chrono::milliseconds geSecondsInterval_;
  std::chrono::milliseconds gaugeInterval_;
  Clock::time_point lastGeSeconds_{};
  Clock::time_point lastGauges_{};
  std::shared_ptr<const engine::SupplySnapshot> exportedSupply_;
};

}  // namespace gpua::cluster
