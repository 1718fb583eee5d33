// Publishes the cluster client's metrics in the telemetry registry under the names of
// telemetry/metric_names.hpp: watch restarts per resource, last event age, ledger size, and
// GPU-equivalent-seconds per namespace and class.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "cluster/ledger.hpp"
#include "cluster/metrics.hpp"
#include "telemetry/metrics.hpp"

namespace gpua::cluster {

class PrometheusExport {
 public:
  // Gauges read `metrics` at scrape time; the shared_ptr keeps it alive as long as the registry.
  PrometheusExport(telemetry::Registry& registry, std::shared_ptr<const ClusterMetrics> metrics);

  void countWatchRestart(const std::string& resource);  // "pods" | "namespaces"

  // Counters only go up: adds what each series gained since the last call.
  void exportGeSeconds(const std::vector<GeSeconds>& totals);

 private:
  telemetry::Registry& registry_;
  std::map<std::pair<std::string, std::string>, double> exported_;  // (ns, class) -> seconds
};

}  // namespace gpua::cluster
