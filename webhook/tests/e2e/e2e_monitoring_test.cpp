// The monitoring kit against the real server: start the binary with the shipped policies and a
// (fake) Kubernetes API, drive a scripted workload (admitted, mutated, denied, CPU-only and
// malformed requests, a running GPU workload in the watch), scrape /metrics, and fail when an
// alert of the PrometheusRule or a panel of the Grafana dashboard names a gpu_admission_* metric
// the server does not export, or matches on a label its samples do not carry. The last test
// proves the check fails on a deliberately wrong name.
#include <thread>

#include "e2e_fake_cluster.hpp"
#include "monitoring_names.hpp"

namespace gpua::testing {
namespace {

using namespace std::chrono_literals;

const std::string kRepo = GPUA_REPO_ROOT;
const std::string kRules = kRepo + "/deploy/components/monitoring/prometheusrule.yaml";
const std::string kDashboard =
    kRepo + "/deploy/components/monitoring/dashboards/gpu-admission.json";

std::string gpuPod(const std::string& ns, const std::string& name, const std::string& labels,
                   const std::string& limits, bool running) {
  return R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":")" + name + R"(","namespace":")" +
         ns + R"(","uid":"uid-)" + name + R"(","labels":)" + labels + R"(},"spec":{)" +
         (running ? R"("nodeName":"gpu-node-1",)" : "") +
         R"("containers":[{"name":"main","image":"cuda:12","resources":{"limits":)" + limits +
         "}}]}" + (running ? R"(,"status":{"phase":"Running"}})" : "}");
}

std::string review(const std::string& uid, const std::string& ns, const std::string& pod) {
  return R"({"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":")" +
         uid +
         R"(","kind":{"group":"","version":"v1","kind":"Pod"},)"
         R"("resource":{"group":"","version":"v1","resource":"pods"},"namespace":")" +
         ns + R"(","operation":"CREATE","userInfo":{"username":"alice"},"object":)" + pod + "}}";
}

class E2eMonitoringTest : public FakeClusterE2eTest {
 protected:
  // The scripted workload: what a cluster sends in a few seconds of ordinary life.
  void driveWorkload() {
    const std::string training = R"({"gpu-admission.io/class":"training"})";
    const std::string oneGpu = R"({"nvidia.com/gpu":"1"})";
    int uid = 0;
    auto send = [&](const std::string& path, const std::string& ns, const std::string& pod) {
      const auto res = post(path, review("w-" + std::to_string(++uid), ns, pod));
      EXPECT_EQ(res.status, 200) << res.body;
    };
    for (const char* path : {"/mutate", "/validate"}) {
      send(path, "vision", gpuPod("vision", "trainer", training, oneGpu, false));  // admitted
      send(path, "vision",
           gpuPod("vision", "greedy", training, R"({"nvidia.com/gpu":"9"})",
                  false));                                                          // denied
      send(path, "vision", gpuPod("vision", "web", "{}", "{}", false));             // no GPU
      send(path, "vision", gpuPod("vision", "stray", "{}", oneGpu, false));         // unclassified
      send(path, "kube-system", gpuPod("kube-system", "dp", "{}", oneGpu, false));  // exempt
    }
    EXPECT_EQ(post("/validate", "{not json").status, 400);
    EXPECT_EQ(client().request("GET", "/nope").status, 404);
  }
};

TEST_F(E2eMonitoringTest, EveryMetricOfTheAlertsAndTheDashboardIsExportedByTheServer) {
  api_.setToken("e2e-token");
  api_.upsertNamespace("vision", {{"team", "vision"}, {"env", "dev"}});
  api_.upsertNamespace("kube-system", {});
  // Supply and queue: an H100 node of pool train-h100 with a trainer bound to it, and one
  // trainer still pending, so the pool, queue and quota families carry samples (and their
  // labels are checked too).
  api_.upsertNode(R"({"apiVersion":"v1","kind":"Node","metadata":{"name":"gpu-node-1","labels":{)"
                  R"("nvidia.com/gpu.product":"NVIDIA-H100-80GB-HBM3",)"
                  R"("gpu-admission.io/pool":"train-h100"}},"spec":{"taints":[{"key":)"
                  R"("nvidia.com/gpu","effect":"NoSchedule"}]},"status":{"allocatable":{)"
                  R"("nvidia.com/gpu":"8"},"conditions":[{"type":"Ready","status":"True"}]}})");
  api_.upsertPod(gpuPod("vision", "running-trainer", R"({"gpu-admission.io/class":"training"})",
                        R"({"nvidia.com/gpu":"2"})", true));
  api_.upsertPod(gpuPod("vision", "queued-trainer", R"({"gpu-admission.io/class":"training"})",
                        R"({"nvidia.com/gpu":"8"})", false));
  start({"--kubeconfig", kubeconfig()}, kRepo + "/policies");
  ASSERT_TRUE(eventually([this] { return client().request("GET", "/readyz").status == 200; }))
      << server_->out();
  driveWorkload();

  // /readyz only says the watches synced: the supply and quota families follow with the next
  // coalesced publish and export, so scrape until they are there (the checks below still fail
  // when they never come).
  std::string scrape;
  Exported exported;
  eventually([&] {
    scrape = metrics();
    exported = parseExposition(scrape);
    for (const char* family : {"gpu_admission_pool_allocatable", "gpu_admission_pending_pods",
                               "gpu_admission_quota_used"})
      if (!exported.withSamples.count(family)) return false;
    return true;
  });
  ASSERT_GT(exported.labels.size(), 10u) << scrape;
  // The build is on /metrics with the version and revision `gpu-admission version` prints.
  EXPECT_NE(
      scrape.find("gpu_admission_build_info{version=\"" GPUA_PROJECT_VERSION "\",revision=\""),
      std::string::npos)
      << scrape;

  // The workload reached the supply and queue families (so their labels are checked below).
  for (const char* family : {"gpu_admission_pool_allocatable", "gpu_admission_pending_pods",
                             "gpu_admission_quota_used", "gpu_admission_requests_total"})
    EXPECT_TRUE(exported.withSamples.count(family)) << family << "\n" << scrape;

  const auto rules = ruleExpressions(kRules);
  const auto panels = dashboardExpressions(kDashboard);
  ASSERT_GT(rules.size(), 10u);
  ASSERT_GT(panels.size(), 10u);
  std::vector<std::string> problems = metricNameProblems(rules, exported, "PrometheusRule");
  for (const auto& p : metricNameProblems(panels, exported, "dashboard")) problems.push_back(p);
  EXPECT_TRUE(problems.empty()) << [&] {
    std::string all;
    for (const auto& p : problems) all += p + "\n";
    return all + "--- /metrics:\n" + scrape;
  }();
}

TEST_F(E2eMonitoringTest, AWrongMetricNameOrLabelFailsTheCheck) {
  start();
  post("/validate", reviewJson(podJson(1), "u-1"));
  const Exported exported = parseExposition(metrics());
  const auto problems =
      metricNameProblems({"rate(gpu_admission_requests_totl[5m])",
                          R"(sum(rate(gpu_admission_requests_total{decison="denied"}[5m])))",
                          "gpu_admission:recorded_rule > 0",
                          "histogram_quantile(0.99, "
                          "rate(gpu_admission_request_duration_seconds_bucket"
                          "{le=\"1\"}[5m]))"},
                         exported, "test");
  ASSERT_EQ(problems.size(), 2u) << [&] {
    std::string all;
    for (const auto& p : problems) all += p + "\n";
    return all;
  }();
  EXPECT_EQ(problems[0], "test: gpu_admission_requests_totl is not exported by the server");
  EXPECT_EQ(problems[1], "test: gpu_admission_requests_total has no label decison");
}

}  // namespace
}  // namespace gpua::testing
