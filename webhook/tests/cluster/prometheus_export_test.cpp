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

TEST(PrometheusExport, PoolGaugesAreDisjointStatesAndStaleSeriesDropToZero) {
  telemetry::Registry registry;
  PrometheusExport exporter(registry, std::make_shared<ClusterMetrics>());
  engine::SupplySnapshot s;
  s.available = true;
  auto& pool = s.pools["infer-a100"];
  pool.nodesTotal = 5;
  pool.nodesReady = 4;
  pool.nodesNotReady = 1;
  pool.nodesCordoned = 2;  // one of them also not ready
  pool.nodesSchedulable = 3;
  auto& slices = pool.resources["nvidia.com/mig-1g.10gb"];
  slices.allocatable = 21;
  slices.allocated = 5;
  exporter.exportSupply(s);
  exporter.exportPending({{"inference", "infer-a100", 9, 2520}});
  auto text = registry.render();
  EXPECT_TRUE(contains(text, "gpu_admission_pool_nodes{pool=\"infer-a100\",state=\"ready\"} 3\n"))
      << text;
  EXPECT_TRUE(
      contains(text, "gpu_admission_pool_nodes{pool=\"infer-a100\",state=\"not_ready\"} 1\n"));
  EXPECT_TRUE(
      contains(text, "gpu_admission_pool_nodes{pool=\"infer-a100\",state=\"cordoned\"} 1\n"));
  EXPECT_TRUE(contains(text,
                       "gpu_admission_pool_allocatable{pool=\"infer-a100\",resource=\"nvidia.com/"
                       "mig-1g.10gb\"} 21\n"));
  EXPECT_TRUE(contains(
      text,
      "gpu_admission_pool_allocated{pool=\"infer-a100\",resource=\"nvidia.com/mig-1g.10gb\"} 5\n"));
  EXPECT_TRUE(
      contains(text, "gpu_admission_pending_pods{class=\"inference\",pool=\"infer-a100\"} 9\n"));
  EXPECT_TRUE(contains(
      text,
      "gpu_admission_pending_oldest_seconds{class=\"inference\",pool=\"infer-a100\"} 2520\n"));
  s.pools.clear();
  exporter.exportSupply(s);
  exporter.exportPending({});
  text = registry.render();
  EXPECT_TRUE(contains(text, "gpu_admission_pool_nodes{pool=\"infer-a100\",state=\"ready\"} 0\n"))
      << text;
  EXPECT_TRUE(
      contains(text, "gpu_admission_pending_pods{class=\"inference\",pool=\"infer-a100\"} 0\n"));
}

TEST(PrometheusExport, ScheduleWaitBucketsAndStartFailures) {
  telemetry::Registry registry;
  PrometheusExport exporter(registry, std::make_shared<ClusterMetrics>());
  exporter.observeScheduleWaits({{"training", 0.5, 0}, {"training", 7200, 0}, {"", 90000, 0}});
  exporter.countStartFailures(
      {{"training", "UnexpectedAdmissionError"}, {"training", "UnexpectedAdmissionError"}});
  const auto text = registry.render();
  EXPECT_TRUE(
      contains(text, "gpu_admission_schedule_wait_seconds_bucket{class=\"training\",le=\"1\"} 1\n"))
      << text;
  EXPECT_TRUE(contains(
      text, "gpu_admission_schedule_wait_seconds_bucket{class=\"training\",le=\"7200\"} 2\n"));
  EXPECT_TRUE(
      contains(text, "gpu_admission_schedule_wait_seconds_bucket{class=\"\",le=\"86400\"} 0\n"));
  EXPECT_TRUE(
      contains(text, "gpu_admission_schedule_wait_seconds_bucket{class=\"\",le=\"+Inf\"} 1\n"));
  EXPECT_TRUE(contains(text,
                       "gpu_admission_pod_start_failures_total{class=\"training\",reason=\""
                       "UnexpectedAdmissionError\"} 2\n"));
}

TEST(PrometheusExport, QuotaUsedAndLimit) {
  telemetry::Registry registry;
  PrometheusExport exporter(registry, std::make_shared<ClusterMetrics>());
  exporter.exportQuotas(
      {{"team-vision", "total", 3.5, 16, {}}, {"team-vision", "class:x", 1, {}, {}}});
  const auto text = registry.render();
  EXPECT_TRUE(
      contains(text, "gpu_admission_quota_used{quota=\"team-vision\",scope=\"total\"} 3.5\n"))
      << text;
  EXPECT_TRUE(
      contains(text, "gpu_admission_quota_limit{quota=\"team-vision\",scope=\"total\"} 16\n"));
  EXPECT_TRUE(
      contains(text, "gpu_admission_quota_used{quota=\"team-vision\",scope=\"class:x\"} 1\n"));
  EXPECT_FALSE(
      contains(text, "gpu_admission_quota_limit{quota=\"team-vision\",scope=\"class:x\"}"));
}

}  // namespace
}  // namespace gpua::cluster
