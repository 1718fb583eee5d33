#include "cluster/prometheus_export.hpp"

#include <chrono>
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
  // Both series exist from the start, so a dashboard shows 0 rather than "no data".
  for (const char* resource : {"pods", "namespaces"})
    registry_.counter(telemetry::kWatchRestartsTotal).with({resource});
}

void PrometheusExport::countWatchRestart(const std::string& resource) {
  registry_.counter(telemetry::kWatchRestartsTotal).with({resource}).inc();
}

void PrometheusExport::exportGeSeconds(const std::vector<GeSeconds>& totals) {
  auto& family = registry_.counter(telemetry::kGpuEquivalentSecondsTotal);
  for (const auto& t : totals) {
    auto& done = exported_[{t.namespaceName, t.className}];
    if (t.seconds > done) family.with({t.namespaceName, t.className}).inc(t.seconds - done);
    done = std::max(done, t.seconds);
  }
}

}  // namespace gpua::cluster
