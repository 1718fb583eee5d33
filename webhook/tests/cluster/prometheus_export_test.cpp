#include "cluster/prometheus_export.hpp"

#include <gtest/gtest.h>

namespace gpua::cluster {
namespace {

bool contains(const std::string& text, const std::string& needle) {
  return text.find(needle) != std::string::npos;
}

TEST(PrometheusExport, GaugesReadTheMetricsAtScrapeTime) {
  telemetry::Registry registry;
  auto metrics = std::make_shared<ClusterMetrics>();
  PrometheusExport exporter(registry, metrics);
  EXPECT_TRUE(contains(registry.render(), "gpu_admission_watch_last_event_age_seconds NaN"));
  EXPECT_TRUE(
      contains(registry.render(), "gpu_admission_watch_restarts_total{resource=\"pods\"} 0"));
  metrics->ledgerPods = 42;
  metrics->lastEventUnixMs = std::chrono::duration_cast<std::chrono::milliseconds>(
                                 std::chrono::system_clock::now().time_since_epoch())
                                 .count() -
                             90'000;
  exporter.countWatchRestart("namespaces");
  const auto text = registry.render();
  EXPECT_TRUE(contains(text, "gpu_admission_ledger_pods 42\n")) << text;
  EXPECT_TRUE(contains(text, "gpu_admission_watch_last_event_age_seconds 90")) << text;
  EXPECT_TRUE(contains(text, "gpu_admission_watch_restarts_total{resource=\"namespaces\"} 1"))
      << text;
}

TEST(PrometheusExport, GeSecondsAddOnlyWhatWasGained) {
  telemetry::Registry registry;
  PrometheusExport exporter(registry, std::make_shared<ClusterMetrics>());
  exporter.exportGeSeconds({{"vision", "training", 2, 30}, {"vision", "", 1, 5}});
  exporter.exportGeSeconds({{"vision", "training", 2, 50}, {"vision", "", 1, 5}});
  const auto text = registry.render();
  EXPECT_TRUE(contains(
      text,
      "gpu_admission_gpu_equivalent_seconds_total{namespace=\"vision\",class=\"training\"} 50\n"))
      << text;
  EXPECT_TRUE(contains(
      text, "gpu_admission_gpu_equivalent_seconds_total{namespace=\"vision\",class=\"\"} 5\n"))
      << text;
}

}  // namespace
}  // namespace gpua::cluster
