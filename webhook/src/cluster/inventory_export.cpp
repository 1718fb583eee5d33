#include "cluster/inventory_export.hpp"

#include <utility>

#include "inventory/quota_usage.hpp"

namespace gpua::cluster {

InventoryExport::InventoryExport(PrometheusExport& out, InventoryReadings readings,
                                 std::chrono::milliseconds geSecondsInterval,
                                 std::chrono::milliseconds gaugeInterval)
    : out_(out),
      in_(std::move(readings)),
      geSecondsInterval_(geSecondsInterval),
      gaugeInterval_(gaugeInterval) {}

void InventoryExport::onTick(Clock::time_point now,
                             const std::vector<inventory::ScheduleWait>& waits,
                             const std::vector<inventory::StartFailure>& failures) {
  out_.observeScheduleWaits(waits);
  out_.countStartFailures(failures);
  if (now - lastGeSeconds_ >= geSecondsInterval_) {
    lastGeSeconds_ = now;
    out_.exportGeSeconds(in_.geSeconds());
  }
  if (now - lastGauges_ >= gaugeInterval_) {
    lastGauges_ = now;
    exportGauges();
  }
}

void InventoryExport::exportGauges() {
  out_.exportPending(in_.pending());
  const auto usage = in_.usage();
  if (usage->available) out_.exportQuotas(inventory::quotaFigures(*in_.policy(), *usage));
  // A pool's gauges change only with a new supply snapshot.
  const auto supply = in_.supply();
  if (supply->available && supply != exportedSupply_) out_.exportSupply(*supply);
  exportedSupply_ = supply;
}

}  // namespace gpua::cluster
