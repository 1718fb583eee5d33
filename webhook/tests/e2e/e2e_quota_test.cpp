// GPU quotas end to end: the real binary watches a (fake, in-process) Kubernetes API server over
// TLS through a kubeconfig, and the admission answers over TLS follow the live usage: a pod over
// the team's budget is denied, one that fits is admitted and patched, a watch event changes the
// outcome, and a broken API past the grace period makes the fail-closed policy deny for
// quota-unavailable while every other rule keeps working.
#include <atomic>
#include <regex>
#include <thread>

#include "e2e_fake_cluster.hpp"

namespace gpua::testing {
namespace {

using namespace std::chrono_literals;

// Training uses whole H100s, inference MIG 1g.10gb slices of A100-80GB (1/7 GPU-equivalent);
// team vision shares 16 GPU-equivalents. Fail closed: no quota decision without live usage.
constexpr const char* kQuotaPolicy = R"(apiVersion: gpu-admission.io/v1
kind: GpuPolicy
metadata: {name: e2e-quota}
spec:
  quotaUnavailable: failClosed
  # The fake cluster has no nodes; this test is about quotas (capacity: e2e_supply_test.cpp).
  capacityCheck: off
  pools:
  - name: train-h100
    gpu: H100-80GB
    sharing: exclusive
    nodeSelector: {gpu-admission.io/pool: train-h100}
  - name: infer-a100
    gpu: A100-80GB
    sharing: mig
    migProfiles: [1g.10gb]
    nodeSelector: {gpu-admission.io/pool: infer-a100}
  classes:
  - name: training
    match: {any: [{labels: {gpu-admission.io/class: training}}]}
    pools: [train-h100]
    gpus: {maxPerPod: 8}
  - name: inference
    match: {any: [{labels: {gpu-admission.io/class: inference}}]}
    pools: [infer-a100]
    gpus: {migProfile: 1g.10gb, maxPerPod: 2}
  unclassifiedGpuPods: deny
  quotas:
  - name: team-vision
    namespaces: {matchLabels: {team: vision}}
    gpuEquivalents: 16
  rollout:
  - mode: enforce
)";

struct Pod {
  std::string name;
  std::string cls;       // gpu-admission.io/class; empty = none
  std::string resource;  // empty = no GPU
  int count = 0;
  std::string nodeSelector;  // a JSON object, or empty
};

std::string podJson(const Pod& p, bool withStatus) {
  const std::string labels =
      p.cls.empty() ? "{}" : R"({"gpu-admission.io/class":")" + p.cls + "\"}";
  const std::string limits =
      p.resource.empty() ? "{}" : "{\"" + p.resource + "\":\"" + std::to_string(p.count) + "\"}";
  return R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":")" + p.name +
         R"(","namespace":"vision","uid":"uid-)" + p.name + R"(","labels":)" + labels +
         R"(},"spec":{)" +
         (p.nodeSelector.empty() ? "" : "\"nodeSelector\":" + p.nodeSelector + ",") +
         R"("containers":[{"name":"main","image":"cuda:12","resources":{"limits":)" + limits +
         "}}]}" + (withStatus ? R"(,"status":{"phase":"Running"}})" : "}");
}

std::string reviewOf(const Pod& p) {
  return R"({"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"r-)" +
         p.name +
         R"(","kind":{"group":"","version":"v1","kind":"Pod"},)"
         R"("resource":{"group":"","version":"v1","resource":"pods"},"namespace":"vision",)"
         R"("operation":"CREATE","userInfo":{"username":"alice"},"object":)" +
         podJson(p, false) + "}}";
}

// The AdmissionReview response's interesting parts.
struct Answer {
  bool allowed = false;
  int code = 0;
  std::string reason, message, patchType, rules;
  rapidjson::Document patch;
  std::string raw;
};

Answer answerOf(const ClientResponse& res) {
  Answer a;
  a.raw = res.body;
  const auto doc = parseJson(res.body);
  if (res.status != 200 || !doc.IsObject() || !doc.HasMember("response")) return a;
  const auto& r = doc["response"];
  a.allowed = r["allowed"].GetBool();
  if (r.HasMember("status")) {
    a.code = r["status"]["code"].GetInt();
    a.reason = r["status"]["reason"].GetString();
    a.message = r["status"]["message"].GetString();
  }
  if (r.HasMember("patchType")) {
    a.patchType = r["patchType"].GetString();
    a.patch = parseJson(base64Decode(r["patch"].GetString()));
  }
  if (r.HasMember("auditAnnotations") && r["auditAnnotations"].HasMember("violation-rules"))
    a.rules = r["auditAnnotations"]["violation-rules"].GetString();
  return a;
}

bool hasNumber(const std::string& text, const std::string& number) {
  return std::regex_search(text, std::regex("(^|[^0-9.])" + number + "([^0-9.]|$)"));
}

const Pod kFourH100{"big-trainer", "training", "nvidia.com/gpu", 4, ""};
const Pod kOneMigSlice{"small-server", "inference", "nvidia.com/mig-1g.10gb", 1, ""};

class E2eQuotaTest : public FakeClusterE2eTest {
 protected:
  void SetUp() override {
    api_.setToken("e2e-token");
    api_.upsertNamespace("vision", {{"team", "vision"}});
    api_.upsertNamespace("nlp", {{"team", "nlp"}});
    // 14 of vision's 16 GPU-equivalents: 8 + 5 whole H100s and 7 MIG 1g slices (7/7 = 1).
    api_.upsertPod(podJson({"train-a", "training", "nvidia.com/gpu", 8, ""}, true));
    api_.upsertPod(podJson({"train-b", "training", "nvidia.com/gpu", 5, ""}, true));
    for (int i = 0; i < 7; ++i)
      api_.upsertPod(podJson(
          {"infer-" + std::to_string(i), "inference", "nvidia.com/mig-1g.10gb", 1, ""}, true));
  }

  Answer admit(const Pod& p) { return answerOf(post("/admit", reviewOf(p))); }

  ClientResponse readyz() { return client().request("GET", "/readyz"); }
};

TEST_F(E2eQuotaTest, LiveUsageDecidesQuotasAndAFailClosedPolicyDeniesWhenTheApiIsGone) {
  api_.setReachable(false);  // readiness waits for the first sync
  start({"--kubeconfig", kubeconfig(), "--quota-unavailable-grace", "300ms"},
        policyDir(kQuotaPolicy));
  const auto early = readyz();
  EXPECT_EQ(early.status, 503);
  EXPECT_NE(early.body.find("cluster state not synced"), std::string::npos) << early.body;
  api_.setReachable(true);
  ASSERT_TRUE(eventually([this] { return readyz().status == 200; }, 10s)) << server_->out();
  EXPECT_GT(api_.count("token=e2e-token"), 0) << "the binary authenticates with the kubeconfig";

  // 14 in use + 4 whole GPUs > 16: denied, naming the quota and the numbers.
  auto denied = admit(kFourH100);
  EXPECT_FALSE(denied.allowed) << denied.raw;
  EXPECT_EQ(denied.code, 403);
  EXPECT_EQ(denied.reason, "Forbidden");
  EXPECT_NE(denied.message.find("team-vision"), std::string::npos) << denied.message;
  for (const char* n : {"16", "14", "4"})
    EXPECT_TRUE(hasNumber(denied.message, n)) << n << " in: " << denied.message;
  EXPECT_EQ(denied.rules, "quota");

  // 14 + 1/7 fits: admitted, with the class's patch (pool affinity).
  auto fits = admit(kOneMigSlice);
  EXPECT_TRUE(fits.allowed) << fits.raw;
  EXPECT_EQ(fits.patchType, "JSONPatch");
  ASSERT_TRUE(fits.patch.IsArray()) << fits.raw;
  EXPECT_GT(fits.patch.Size(), 0u);
  EXPECT_NE(toJson(fits.patch).find("infer-a100"), std::string::npos) << toJson(fits.patch);

  // A new pod in the watch stream takes the team to 16: the slice no longer fits.
  api_.upsertPod(podJson({"train-c", "training", "nvidia.com/gpu", 2, ""}, true));
  ASSERT_TRUE(eventually([this] { return !admit(kOneMigSlice).allowed; })) << server_->out();
  const auto full = admit(kOneMigSlice);
  EXPECT_EQ(full.rules, "quota");
  EXPECT_NE(full.message.find("team-vision"), std::string::npos) << full.message;
  EXPECT_TRUE(hasNumber(full.message, "16")) << full.message;
  const auto scrape = metrics();
  EXPECT_NE(scrape.find("gpu_admission_ledger_pods 10"), std::string::npos) << scrape;

  // The API breaks for longer than the grace: quotas cannot be checked, the policy fails closed.
  api_.setReachable(false);
  ASSERT_TRUE(eventually([this] { return admit(kOneMigSlice).rules == "quota-unavailable"; }))
      << admit(kOneMigSlice).raw << server_->out();
  const auto unavailable = admit(kOneMigSlice);
  EXPECT_FALSE(unavailable.allowed);
  EXPECT_EQ(unavailable.code, 403);
  EXPECT_NE(unavailable.message.find("team-vision"), std::string::npos) << unavailable.message;
  // Rules that need no usage keep working: a CPU pod is admitted, a CPU pod aimed at the GPU
  // pool is denied for that, not for quotas.
  EXPECT_TRUE(admit({"cpu-only", "", "", 0, ""}).allowed);
  const auto aimed =
      admit({"cpu-on-gpu-node", "", "", 0, R"({"gpu-admission.io/pool":"train-h100"})"});
  EXPECT_FALSE(aimed.allowed) << aimed.raw;
  EXPECT_EQ(aimed.rules, "gpu-pool-without-request");
  EXPECT_EQ(readyz().status, 200) << "a broken watch after the first sync keeps the pod ready";

  const auto after = metrics();
  EXPECT_NE(after.find("gpu_admission_watch_restarts_total{resource=\"pods\"}"), std::string::npos)
      << after;
  EXPECT_NE(after.find("gpu_admission_quota_unavailable_total{policy=\"fail-closed\"}"),
            std::string::npos)
      << after;
  EXPECT_NE(logWith("\"component\":\"cluster\"").find("\"component\":\"cluster\""),
            std::string::npos)
      << "the cluster client logs into the server's JSON log";

  // The API comes back: quotas are live again (16 in use, the slice still does not fit).
  api_.setReachable(true);
  EXPECT_TRUE(eventually([this] { return admit(kOneMigSlice).rules == "quota"; }, 10s));

  // A hot-reloaded policy with a bigger budget reaches the decisions and the ledger: 16 + 4 = 20.
  writePolicyVersion(
      std::regex_replace(kQuotaPolicy, std::regex("gpuEquivalents: 16"), "gpuEquivalents: 20"));
  EXPECT_TRUE(eventually([this] { return admit(kFourH100).allowed; })) << server_->out();
}

// /readyz stayed 503 forever while the pod list was forbidden, even with quotaUnavailable:
// failOpen: both replicas unready leave the Service without endpoints, and the fail-closed pod
// webhook then refuses every pod in the cluster.
TEST_F(E2eQuotaTest, AForbiddenPodListLeavesAFailOpenReplicaReadyAfterTheSyncGrace) {
  api_.setForbidden("pods", true);
  const auto failOpen = std::regex_replace(kQuotaPolicy, std::regex("failClosed"), "failOpen");
  ASSERT_NE(failOpen, kQuotaPolicy);
  start({"--kubeconfig", kubeconfig(), "--sync-grace", "500ms"}, policyDir(failOpen));
  ASSERT_TRUE(eventually([this] { return readyz().status == 200; }, 10s))
      << readyz().body << server_->out();
  const auto gpu = admit(kOneMigSlice);
  EXPECT_TRUE(gpu.allowed) << gpu.raw;
  EXPECT_NE(gpu.raw.find("GPU quota not checked"), std::string::npos) << gpu.raw;
}

TEST_F(E2eQuotaTest, AForbiddenPodListKeepsAFailClosedReplicaUnready) {
  api_.setForbidden("pods", true);
  start({"--kubeconfig", kubeconfig(), "--sync-grace", "200ms"}, policyDir(kQuotaPolicy));
  std::this_thread::sleep_for(1500ms);  // well past the grace
  const auto r = readyz();
  EXPECT_EQ(r.status, 503) << "failClosed: documented as unready until the first sync";
  EXPECT_NE(r.body.find("cluster state not synced"), std::string::npos) << r.body;
}

// A governed admission's reservation waits on the apiserver (the reservation ConfigMap's GET and
// PUT). It waited on an I/O thread: in a burst both threads of a replica were in apiserver round
// trips, new connections' TLS handshakes waited behind them, and haproxy's 500 ms health check
// took the replica out (live suite, QuotaReservations: it answered 5 of 200 calls). With one I/O
// thread and the apiserver answering ConfigMaps 1.5 s late, a probe is answered while the
// reservation still waits.
TEST_F(E2eQuotaTest, AReservationWaitingOnTheApiserverHoldsNoIoThread) {
  start({"--kubeconfig", kubeconfig(), "--threads", "1", "--reservation-namespace", "gpu-admission",
         "--quota-reservation-timeout", "8s"},
        policyDir(kQuotaPolicy));
  ASSERT_TRUE(eventually([this] { return readyz().status == 200; }, 10s)) << server_->out();
  api_.setConfigMapDelay(1500ms);
  std::atomic<bool> governedAnswered{false};
  Answer reserved;
  std::thread governed([&] {
    reserved = answerOf(post("/validate", reviewOf(kOneMigSlice)));
    governedAnswered = true;
  });
  const bool waiting = eventually([this] { return api_.count("/configmaps") > 0; }, 5s);
  const auto probe = client().request("GET", "/healthz");
  const bool answeredMeanwhile = !governedAnswered;
  governed.join();
  ASSERT_TRUE(waiting) << "the reservation never reached the apiserver\n" << server_->out();
  EXPECT_EQ(probe.status, 200);
  EXPECT_TRUE(answeredMeanwhile) << "the probe waited for the reservation's apiserver calls";
  EXPECT_TRUE(reserved.allowed) << reserved.raw;
  EXPECT_EQ(api_.count("POST /api/v1/namespaces/gpu-admission/configmaps"), 1) << server_->out();
  EXPECT_NE(metrics().find("gpu_admission_quota_reservations_total{result=\"reserved\"} 1"),
            std::string::npos);
}

TEST_F(E2eQuotaTest, FixedUsageFromKubectlJsonFiles) {
  // What `kubectl get pods -A -o json` and `kubectl get ns -o json` print, in two files.
  std::string items;
  for (const auto& p : std::vector<Pod>{{"train-a", "training", "nvidia.com/gpu", 8, ""},
                                        {"train-b", "training", "nvidia.com/gpu", 6, ""}})
    items += (items.empty() ? "" : ",") + podJson(p, true);
  writeFile(work_.path() / "pods.json", R"({"kind":"List","items":[)" + items + "]}");
  writeFile(work_.path() / "ns.json",
            R"({"kind":"List","items":[{"kind":"Namespace","metadata":{"name":"vision",)"
            R"("labels":{"team":"vision"}}}]})");
  start({"--usage-from", work_.file("pods.json") + "," + work_.file("ns.json")},
        policyDir(kQuotaPolicy));
  EXPECT_EQ(readyz().status, 200);
  const auto denied = admit(kFourH100);
  EXPECT_FALSE(denied.allowed);
  EXPECT_EQ(denied.rules, "quota");
  EXPECT_TRUE(hasNumber(denied.message, "14")) << denied.message;
  EXPECT_TRUE(admit(kOneMigSlice).allowed);
}

TEST_F(E2eQuotaTest, WithoutAUsageSourceTheFailClosedPolicyDeniesQuotaPodsOnly) {
  // Without a usage source namespace labels are unknown too, so this quota names its namespace.
  const auto byName = std::regex_replace(
      kQuotaPolicy, std::regex("\\{matchLabels: \\{team: vision\\}\\}"), "{names: [vision]}");
  ASSERT_NE(byName, kQuotaPolicy);
  start({}, policyDir(byName));
  EXPECT_EQ(readyz().status, 200) << "nothing to sync";
  const auto gpu = admit(kOneMigSlice);
  EXPECT_FALSE(gpu.allowed) << gpu.raw;
  EXPECT_EQ(gpu.rules, "quota-unavailable");
  EXPECT_TRUE(admit({"cpu-only", "", "", 0, ""}).allowed);
  EXPECT_NE(logWith("no usage source").find("no usage source"), std::string::npos)
      << server_->out();
}

TEST_F(E2eQuotaTest, UsageSourceConfigErrorsAreOneLineNamingTheFileAndKey) {
  const auto policies = policyDir(kQuotaPolicy);
  const auto config = kubeconfig();
  const auto missing = work_.file("kube/nope");
  const std::vector<std::pair<std::vector<std::string>, std::vector<std::string>>> cases = {
      {{"--kubeconfig", missing}, {"cluster: ", missing}},
      {{"--kubeconfig", config, "--kube-context", "staging"}, {config, "\"staging\""}},
      {{"--usage-from", work_.file("none.json")}, {"usage: ", "none.json"}},
      {{"--in-cluster", "--usage-from", work_.file("none.json")}, {"choose one usage source"}},
  };
  for (const auto& [flags, fragments] : cases) {
    std::vector<std::string> args{
        "serve",     "--policies",       policies,   "--tls-cert", cert("server.crt"),
        "--tls-key", cert("server.key"), "--listen", "127.0.0.1:0"};
    args.insert(args.end(), flags.begin(), flags.end());
    SCOPED_TRACE(args.back());
    ServerProcess p(args, work_.path().string());
    EXPECT_EQ(p.waitExit(10s), 1);
    const auto err = p.err();
    EXPECT_NE(err.find("gpu-admission serve: error: "), std::string::npos) << err;
    for (const auto& f : fragments) EXPECT_NE(err.find(f), std::string::npos) << f << " in " << err;
    EXPECT_EQ(std::count(err.begin(), err.end(), '\n'), 1) << err;
  }
}

}  // namespace
}  // namespace gpua::testing
