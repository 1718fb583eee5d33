// Publishes the cluster client's metrics in the telemetry registry under the names of
// telemetry/metric_names.hpp: watch restarts per resource, last event age, ledger size,
// GPU-equivalent-seconds per namespace and class, and the supply and queue metrics (pool nodes,
// allocatable, allocated, pending pods, schedule waits, start failures, quota used and limit).
#pragma once

#include <map>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "cluster/metrics.hpp"
#include "engine/context/supply.hpp"
#include "inventory/ledger.hpp"
#include "inventory/quota_usage.hpp"
#include "inventory/supply_ledger.hpp"
#include "telemetry/metrics.hpp"

namespace gpua::cluster {

// Bucket bounds of gpu_admission_schedule_wait_seconds (1 s .. 24 h).
std::vector<double> scheduleWaitBuckets();

class PrometheusExport {
 public:
  // Gauges read `metrics` at scrape time; the shared_ptr keeps it alive as long as the registry.
  PrometheusExport(telemetry::Registry& registry, std::shared_ptr<const ClusterMetrics> metrics);

  void countWatchRestart(const std::string& resource);  // "pods" | "namespaces" | "nodes"

  // Counters only go up: adds what each series gained since the last call.
  void exportGeSeconds(const std::vector<inventory::GeSeconds>& totals);

  // Pool gauges from a summarized snapshot (pools filled). Series that disappeared (a pool
  // renamed, a queue drained) are set to 0, not left stale.
  void exportSupply(const engine::SupplySnapshot& supply);
  void exportPending(const std::vector<engine::PendingQueue>& pending);
  void exportQuotas(const std::vector<inventory::QuotaFigure>& figures);
  void observeScheduleWaits(const std::vector<inventory::ScheduleWait>& waits);
  void countStartFailures(const std::vector<inventory::StartFailure>& failures);

 private:
  telemetry::Registry& registry_;
  using LabelPair = std::pair<std::string, std::string>;
  // Sets the gauges of `values` and zeroes those `previous` had that `values` lacks.
  void setGauges(telemetry::GaugeFamily& family, const std::map<LabelPair, double>& values,
                 std::set<LabelPair>& previous);

  std::map<LabelPair, double> exported_;  // (ns, class) -> seconds
  std::set<LabelPair> poolNodes_, allocatable_, allocated_, draDevices_, draAllocated_, pending_,
      oldest_, quotaUsed_, quotaLimit_;
};

}  // namespace gpua::cluster
