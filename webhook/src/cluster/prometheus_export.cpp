#include "cluster/prometheus_export.hpp"

#include <algorithm>
#include <chrono>
#include <iterator>
#include <limits>

#include "telemetry/metric_names.hpp"

namespace gpua::cluster {

PrometheusExport::PrometheusExport(telemetry::Registry& registry,
                                   std::shared_ptr<const ClusterMetrics> metrics)
    : registry_(registry) {
  registry_.gauge(telemetry::kWatchLastEventAgeSeconds).get().setCallback([metrics] {
    const int64_t last = metrics->lastEventUnixMs.load();
    if (last == 0) return std::numeric_limits<double>::quiet_NaN();  // nothing received yet
    const int64_t now = std::chrono::duration_cast<std::chrono::milliseconds>(
                            std::chrono::system_clock::now().time_since_epoch())
                            .count();
    return static_cast<double>(now - last) / 1000.0;
  });
  registry_.gauge(telemetry::kLedgerPods).get().setCallback([metrics] {
    return static_cast<double>(metrics->ledgerPods.load());
  });
  // Registered up front so /metrics lists them before the first node or pod arrives.
  registry_.gauge(telemetry::kPoolNodes);
  registry_.gauge(telemetry::kPoolAllocatable);
  registry_.gauge(telemetry::kPoolAllocated);
  registry_.gauge(telemetry::kPoolDraDevices);
  registry_.gauge(telemetry::kPoolDraAllocated);
  registry_.gauge(telemetry::kPendingPods);
  registry_.gauge(telemetry::kPendingOldestSeconds);
  registry_.histogram(telemetry::kScheduleWaitSeconds, scheduleWaitBuckets());
  registry_.counter(telemetry::kPodStartFailuresTotal);
  registry_.gauge(telemetry::kQuotaUsed);
  registry_.gauge(telemetry::kQuotaLimit);
  // Both series exist from the start, so a dashboard shows 0 rather than "no data".
  for (const char* resource : {"pods", "namespaces", "nodes"})
    registry_.counter(telemetry::kWatchRestartsTotal).with({resource});
}

void PrometheusExport::countWatchRestart(const std::string& resource) {
  registry_.counter(telemetry::kWatchRestartsTotal).with({resource}).inc();
}

void PrometheusExport::exportGeSeconds(const std::vector<inventory::GeSeconds>& totals) {
  auto& family = registry_.counter(telemetry::kGpuEquivalentSecondsTotal);
  for (const auto& t : totals) {
    auto& done = exported_[{t.namespaceName, t.className}];
    if (t.seconds > done) family.with({t.namespaceName, t.className}).inc(t.seconds - done);
    done = std::max(done, t.seconds);
  }
}

void PrometheusExport::setGauges(telemetry::GaugeFamily& family,
                                 const std::map<LabelPair, double>& values,
                                 std::set<LabelPair>& previous) {
  for (const auto& labels : previous)
    if (!values.contains(labels)) family.with({labels.first, labels.second}).set(0);
  previous.clear();
  for (const auto& [labels, value] : values) {
    family.with({labels.first, labels.second}).set(value);
    previous.insert(labels);
  }
}

void PrometheusExport::exportSupply(const engine::SupplySnapshot& supply) {
  std::map<LabelPair, double> nodes, allocatable, allocated, draDevices, draAllocated;
  for (const auto& [pool, p] : supply.pools) {
    // Disjoint states that add up to the pool's nodes.
    nodes[{pool, "ready"}] = static_cast<double>(p.nodesSchedulable);
    nodes[{pool, "not_ready"}] = static_cast<double>(p.nodesNotReady);
    nodes[{pool, "cordoned"}] = static_cast<double>(
        std::max<int64_t>(0, p.nodesTotal - p.nodesNotReady - p.nodesSchedulable));
    for (const auto& [resource, r] : p.resources) {
      allocatable[{pool, resource}] = static_cast<double>(r.allocatable);
      allocated[{pool, resource}] = static_cast<double>(r.allocated);
    }
    for (const auto& [resource, d] : p.dra) {
      draDevices[{pool, resource}] = static_cast<double>(d.devices);
      draAllocated[{pool, resource}] = static_cast<double>(d.allocated);
    }
  }
  setGauges(registry_.gauge(telemetry::kPoolNodes), nodes, poolNodes_);
  setGauges(registry_.gauge(telemetry::kPoolAllocatable), allocatable, allocatable_);
  setGauges(registry_.gauge(telemetry::kPoolAllocated), allocated, allocated_);
  setGauges(registry_.gauge(telemetry::kPoolDraDevices), draDevices, draDevices_);
  setGauges(registry_.gauge(telemetry::kPoolDraAllocated), draAllocated, draAllocated_);
}

void PrometheusExport::exportPending(const std::vector<engine::PendingQueue>& queues) {
  std::map<LabelPair, double> pending, oldest;
  for (const auto& q : queues) {
    pending[{q.className, q.pool}] = static_cast<double>(q.pods);
    oldest[{q.className, q.pool}] = q.oldestWaitSeconds;
  }
  setGauges(registry_.gauge(telemetry::kPendingPods), pending, pending_);
  setGauges(registry_.gauge(telemetry::kPendingOldestSeconds), oldest, oldest_);
}

void PrometheusExport::exportQuotas(const std::vector<inventory::QuotaFigure>& figures) {
  std::map<LabelPair, double> used, limit;
  for (const auto& f : figures) {
    used[{f.quota, f.scope}] = f.used;
    if (f.limit) limit[{f.quota, f.scope}] = *f.limit;
  }
  setGauges(registry_.gauge(telemetry::kQuotaUsed), used, quotaUsed_);
  setGauges(registry_.gauge(telemetry::kQuotaLimit), limit, quotaLimit_);
}

void PrometheusExport::observeScheduleWaits(const std::vector<inventory::ScheduleWait>& waits) {
  auto& family = registry_.histogram(telemetry::kScheduleWaitSeconds, scheduleWaitBuckets());
  for (const auto& w : waits) family.with({w.className}).observe(w.seconds);
}

void PrometheusExport::countStartFailures(const std::vector<inventory::StartFailure>& failures) {
  auto& family = registry_.counter(telemetry::kPodStartFailuresTotal);
  for (const auto& f : failures) family.with({f.className, f.reason}).inc();
}

std::vector<double> scheduleWaitBuckets() {
  return {std::begin(telemetry::kScheduleWaitBucketsSeconds),
          std::end(telemetry::kScheduleWaitBucketsSeconds)};
}

}  // namespace gpua::cluster
