// The webhook service without sockets: content types, readiness, metrics, logs, and the 500
// path for an engine failure (which the real engine never shows on purpose).
#include "server/webhook_service.hpp"

#include <gtest/gtest.h>

#include <cstdio>
#include <stdexcept>

#include "policy/loader.hpp"
#include "server/readiness.hpp"

namespace gpua::server {
namespace {

constexpr const char* kPolicy = R"(apiVersion: gpu-admission.io/v1
kind: GpuPolicy
metadata: {name: unit}
spec:
  pools:
  - {name: h100, gpu: H100-80GB, sharing: exclusive, nodeSelector: {gpu: h100}}
  classes:
  - name: training
    match: {any: [{labels: {gpu-admission.io/class: training}}]}
    pools: [h100]
  rollout:
  - mode: enforce
)";

std::string review(const std::string& uid) {
  return R"({"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":")" +
         uid +
         R"(","kind":{"group":"","version":"v1","kind":"Pod"},"namespace":"ml","operation":"CREATE",)"
         R"("object":{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","labels":)"
         R"({"gpu-admission.io/class":"training"}},"spec":{"containers":[{"name":"c",)"
         R"("env":[{"name":"PASSWORD","value":"do-not-log-me"}],)"
         R"("resources":{"limits":{"nvidia.com/gpu":"1"}}}]}}}})";
}

engine::Decision throwingDecide(const rapidjson::Value&, const engine::RequestContext&,
                                const policy::PolicySet&, const engine::UsageSnapshot&) {
  throw std::runtime_error("engine exploded");
}

class FixedUsage : public engine::UsageSource {
 public:
  std::shared_ptr<const engine::UsageSnapshot> current() const override {
    return std::make_shared<engine::UsageSnapshot>();
  }
  bool synced() const override { return synced_; }
  bool synced_ = false;
};

class WebhookServiceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto loaded = policy::loadPolicySources({{"unit.yaml", kPolicy}});
    ASSERT_TRUE(loaded.ok()) << (loaded.errors.empty() ? "" : loaded.errors[0].format());
    policy_ = std::make_shared<Snapshot<policy::PolicySet>>(loaded.policy);
    logFile_ = std::tmpfile();
    logger_ = std::make_unique<telemetry::JsonLogger>(logFile_);
    readiness_ = std::make_shared<Readiness>(usage_);
    readiness_->setPoliciesLoaded(true);
    readiness_->setCertificatesLoaded(true);
  }
  void TearDown() override { std::fclose(logFile_); }

  WebhookService service(admission::DecideFn decide = nullptr) {
    return WebhookService({policy_, usage_, readiness_, &metrics_, logger_.get(), decide});
  }

  std::string logs() {
    std::fflush(logFile_);
    std::rewind(logFile_);
    std::string out;
    char buf[4096];
    while (auto n = std::fread(buf, 1, sizeof buf, logFile_)) out.append(buf, n);
    return out;
  }

  static HttpRequest post(std::string path, std::string body,
                          std::string contentType = "application/json") {
    HttpRequest r;
    r.method = "POST";
    r.target = r.path = std::move(path);
    r.body = std::move(body);
    r.contentType = std::move(contentType);
    return r;
  }

  std::shared_ptr<Snapshot<policy::PolicySet>> policy_;
  std::shared_ptr<FixedUsage> usage_ = std::make_shared<FixedUsage>();
  std::shared_ptr<Readiness> readiness_;
  telemetry::Registry registry_;
  WebhookMetrics metrics_{registry_};
  std::FILE* logFile_ = nullptr;
  std::unique_ptr<telemetry::JsonLogger> logger_;
};

TEST(JsonContentType, MediaTypeDecidesParametersAndCaseDoNot) {
  EXPECT_TRUE(isJsonContentType("application/json"));
  EXPECT_TRUE(isJsonContentType("application/json; charset=utf-8"));
  EXPECT_TRUE(isJsonContentType(" Application/JSON ;charset=UTF-8"));
  EXPECT_FALSE(isJsonContentType(""));
  EXPECT_FALSE(isJsonContentType("text/plain"));
  EXPECT_FALSE(isJsonContentType("application/jsonx"));
  EXPECT_FALSE(isJsonContentType("application/yaml"));
}

TEST_F(WebhookServiceTest, RoutesEveryEndpoint) {
  auto s = service();
  const auto router = s.router();
  EXPECT_EQ(router.route(post("/mutate", review("a"))).status, 200);
  EXPECT_EQ(router.route(post("/validate", review("b"))).status, 200);
  EXPECT_EQ(router.route(post("/admit", review("c"))).status, 200);
  HttpRequest get;
  get.method = "GET";
  for (const char* p : {"/healthz", "/metrics"}) {
    get.path = p;
    EXPECT_EQ(router.route(get).status, 200) << p;
  }
}

TEST_F(WebhookServiceTest, EngineFailureIs500LoggedWithTheUid) {
  auto s = service(&throwingDecide);
  const auto res = s.admit(post("/mutate", review("uid-boom")), admission::Endpoint::Mutate);
  EXPECT_EQ(res.status, 500);
  EXPECT_EQ(res.errorKind, "internal-error");
  EXPECT_NE(res.body.find("uid-boom"), std::string::npos) << res.body;
  const auto log = logs();
  EXPECT_NE(log.find("\"level\":\"error\""), std::string::npos) << log;
  EXPECT_NE(log.find("\"uid\":\"uid-boom\""), std::string::npos) << log;
  EXPECT_NE(registry_.render().find("decision=\"error\""), std::string::npos);
}

TEST_F(WebhookServiceTest, WrongContentTypeIs415AndCounted) {
  auto s = service();
  const auto res =
      s.admit(post("/mutate", review("x"), "application/yaml"), admission::Endpoint::Mutate);
  EXPECT_EQ(res.status, 415);
  EXPECT_NE(res.body.find("application/yaml"), std::string::npos);
  EXPECT_NE(
      registry_.render().find("gpu_admission_bad_requests_total{kind=\"wrong-content-type\"} 1"),
      std::string::npos);
}

// A gzip body was parsed as JSON and refused as invalid-json, which named the wrong problem.
TEST_F(WebhookServiceTest, ACompressedBodyIs415NamingTheEncoding) {
  auto s = service();
  auto req = post("/validate", review("gz"));
  req.contentEncoding = "gzip";
  const auto res = s.admit(req, admission::Endpoint::Validate);
  EXPECT_EQ(res.status, 415);
  EXPECT_NE(res.body.find("Content-Encoding \"gzip\""), std::string::npos) << res.body;
  EXPECT_NE(registry_.render().find("kind=\"unsupported-content-encoding\""), std::string::npos);
  req.contentEncoding = "identity";
  EXPECT_EQ(s.admit(req, admission::Endpoint::Validate).status, 200);
}

TEST_F(WebhookServiceTest, DecisionLogNamesThePodButNotItsEnv) {
  auto s = service();
  ASSERT_EQ(s.admit(post("/mutate", review("uid-1")), admission::Endpoint::Mutate).status, 200);
  const auto log = logs();
  EXPECT_NE(log.find("\"msg\":\"admission decision\""), std::string::npos) << log;
  EXPECT_NE(log.find("\"class\":\"training\""), std::string::npos) << log;
  EXPECT_EQ(log.find("do-not-log-me"), std::string::npos) << log;
  EXPECT_EQ(std::count(log.begin(), log.end(), '\n'), 1);
}

TEST_F(WebhookServiceTest, ReadinessFollowsSyncAndShutdown) {
  auto s = service();
  HttpRequest get;
  get.method = "GET";
  get.path = "/readyz";
  auto res = s.readyz(get);
  EXPECT_EQ(res.status, 503);
  EXPECT_NE(res.body.find("cluster state not synced"), std::string::npos);
  usage_->synced_ = true;
  EXPECT_EQ(s.readyz(get).status, 200);
  readiness_->setShuttingDown();
  res = s.readyz(get);
  EXPECT_EQ(res.status, 503);
  EXPECT_NE(res.body.find("shutting down"), std::string::npos);
}

TEST_F(WebhookServiceTest, QuotaChecksWithoutUsageAreCountedByFallback) {
  const auto metric = [this](const std::string& fallback) {
    const std::string line = "gpu_admission_quota_unavailable_total{policy=\"" + fallback + "\"} ";
    const auto text = registry_.render();
    const auto at = text.find(line);
    return at == std::string::npos ? 0 : std::stoi(text.substr(at + line.size()));
  };
  const auto use = [this](const std::string& mode, const std::string& ns) {
    std::string yaml = kPolicy;
    yaml.insert(yaml.find("  rollout:"), "  quotaUnavailable: " + mode +
                                             "\n  quotas:\n  - name: q\n    namespaces: "
                                             "{names: [" +
                                             ns + "]}\n    gpuEquivalents: 4\n");
    auto loaded = policy::loadPolicySources({{"quota.yaml", yaml}});
    ASSERT_TRUE(loaded.ok()) << (loaded.errors.empty() ? "" : loaded.errors[0].format());
    policy_->set(loaded.policy);
  };
  auto s = service();  // usage_ is never available: no cluster client

  use("failClosed", "ml");
  auto res = s.admit(post("/validate", review("closed")), admission::Endpoint::Validate);
  EXPECT_NE(res.body.find("\"allowed\":false"), std::string::npos) << res.body;
  EXPECT_EQ(metric("fail-closed"), 1);
  // /mutate leaves the denial to /validate: admitted unchanged, counted as deferred.
  res = s.admit(post("/mutate", review("closed-too")), admission::Endpoint::Mutate);
  EXPECT_NE(res.body.find("\"allowed\":true"), std::string::npos) << res.body;
  EXPECT_NE(registry_.render().find("path=\"/mutate\",decision=\"deferred\""), std::string::npos)
      << registry_.render();
  EXPECT_EQ(metric("fail-closed"), 2);

  use("failOpen", "ml");
  res = s.admit(post("/mutate", review("open")), admission::Endpoint::Mutate);
  EXPECT_NE(res.body.find("\"allowed\":true"), std::string::npos) << res.body;
  EXPECT_EQ(metric("fail-open"), 1);
  EXPECT_EQ(metric("fail-closed"), 2);

  use("failOpen", "elsewhere");  // no quota covers "ml": nothing was checked without usage
  s.admit(post("/mutate", review("uncovered")), admission::Endpoint::Mutate);
  EXPECT_EQ(metric("fail-open"), 1);
}

// Live usage with nothing in use, and a store that keeps what is written.
class LiveUsage : public engine::UsageSource {
 public:
  std::shared_ptr<const engine::UsageSnapshot> current() const override {
    auto s = std::make_shared<engine::UsageSnapshot>();
    s->available = true;
    return s;
  }
  bool synced() const override { return true; }
};

class MemoryStore : public engine::ReservationStore {
 public:
  ReadResult read(std::chrono::steady_clock::time_point) override {
    ++reads;
    return engine::ReservationBook{version, entries};
  }
  WriteResult write(const std::string& v, const std::vector<engine::Reservation>& e,
                    std::chrono::steady_clock::time_point) override {
    if (v != version) return Conflict{};
    entries = e;
    version = std::to_string(++writes);
    return Written{version};
  }
  std::string where() const override { return "memory"; }
  std::string version;
  std::vector<engine::Reservation> entries;
  int reads = 0, writes = 0;
};

TEST_F(WebhookServiceTest, ValidateReservesGovernedPodsAndCountsIt) {
  std::string yaml = kPolicy;
  yaml.insert(yaml.find("  rollout:"),
              "  quotas:\n  - name: q\n    namespaces: {names: [ml]}\n    gpuEquivalents: 1\n");
  auto loaded = policy::loadPolicySources({{"quota.yaml", yaml}});
  ASSERT_TRUE(loaded.ok()) << (loaded.errors.empty() ? "" : loaded.errors[0].format());
  policy_->set(loaded.policy);
  auto store = std::make_shared<MemoryStore>();
  WebhookService s({policy_, std::make_shared<LiveUsage>(), readiness_, &metrics_, logger_.get(),
                    nullptr, nullptr, nullptr,
                    std::make_shared<QuotaReserver>(store, ReservationSettings{})});
  const auto withUid = [](const std::string& uid) {
    std::string body = review(uid);
    body.insert(body.find(R"("labels":)"), R"("uid":"pod-)" + uid + R"(",)");
    return body;
  };
  // /mutate never reserves (the pod has no uid yet); /validate does, once, in the answer's
  // finishWaiting step: the server runs that where waiting on the store holds no I/O thread.
  const auto mutate = s.admit(post("/mutate", withUid("a")), admission::Endpoint::Mutate);
  EXPECT_FALSE(mutate.finishWaiting);
  EXPECT_EQ(store->reads + store->writes, 0);
  const auto validateA = post("/validate", withUid("a"));
  auto res = s.admit(validateA, admission::Endpoint::Validate);
  ASSERT_TRUE(res.finishWaiting);
  EXPECT_EQ(store->reads + store->writes, 0) << "nothing reserved before the waiting step";
  res = finished(std::move(res), validateA);
  EXPECT_NE(res.body.find("\"allowed\":true"), std::string::npos) << res.body;
  ASSERT_EQ(store->entries.size(), 1u);
  EXPECT_EQ(store->entries[0].podUid, "pod-a");
  EXPECT_EQ(store->entries[0].pod, "ml/p");
  // The quota (1 GPU) is now reserved: a second pod the watch's usage would admit is denied.
  const auto validateB = post("/validate", withUid("b"));
  res = finished(s.admit(validateB, admission::Endpoint::Validate), validateB);
  EXPECT_NE(res.body.find("\"allowed\":false"), std::string::npos) << res.body;
  const auto text = registry_.render();
  EXPECT_NE(text.find("gpu_admission_quota_reservations_total{result=\"reserved\"} 1"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("gpu_admission_quota_reservations_total{result=\"denied\"} 1"),
            std::string::npos);
  EXPECT_NE(text.find("gpu_admission_quota_reservation_round_trips_total 2"), std::string::npos);
}

TEST(QuotaFallback, FollowsThePolicyWhenTheEngineCouldNotCheckAQuota) {
  auto open = policy::loadPolicySources(
      {{"q.yaml", std::string(kPolicy).insert(std::string(kPolicy).find("  rollout:"),
                                              "  quotas:\n  - name: q\n    gpuEquivalents: 4\n")}});
  ASSERT_TRUE(open.ok()) << (open.errors.empty() ? "" : open.errors[0].format());
  auto closed = policy::loadPolicySources(
      {{"q.yaml", std::string(kPolicy).insert(std::string(kPolicy).find("  rollout:"),
                                              "  quotaUnavailable: failClosed\n"
                                              "  quotas:\n  - name: q\n    gpuEquivalents: 4\n")}});
  ASSERT_TRUE(closed.ok()) << (closed.errors.empty() ? "" : closed.errors[0].format());
  engine::Decision unchecked;
  unchecked.quotaUnchecked = true;
  EXPECT_EQ(quotaFallback(unchecked, *open.policy), "fail-open");
  EXPECT_EQ(quotaFallback(unchecked, *closed.policy), "fail-closed");
  EXPECT_EQ(quotaFallback(engine::Decision{}, *open.policy), "");
  EXPECT_EQ(quotaFallback(engine::Decision{}, *closed.policy), "");
}

TEST(DecisionLogClass, DenialsAndViolationsAlwaysAtInfoMutationsSampledLeftAloneAtDebug) {
  using telemetry::LogLevel;
  const auto is = [](const engine::Decision* d, LogLevel level, bool sampled) {
    const auto c = decisionLogClass(d);
    return c.level == level && c.sampled == sampled;
  };
  engine::Decision alone;
  EXPECT_TRUE(is(&alone, LogLevel::Debug, true));
  EXPECT_TRUE(is(nullptr, LogLevel::Debug, true));

  engine::Decision mutated;
  mutated.patch.push_back({engine::PatchOp::Kind::Add, "/metadata/labels", "{}"});
  mutated.warnings.push_back("gpu-admission: added node affinity");  // every mutation warns
  EXPECT_TRUE(is(&mutated, LogLevel::Info, true));

  engine::Decision warned = mutated;
  warned.mode = policy::Mode::Warn;
  warned.violations.push_back({"max-per-pod", "too many GPUs"});
  EXPECT_TRUE(is(&warned, LogLevel::Info, false));

  engine::Decision denied;
  denied.denial = engine::Denial{};
  EXPECT_TRUE(is(&denied, LogLevel::Info, false));

  engine::Decision unchecked;
  unchecked.quotaUnchecked = true;
  EXPECT_TRUE(is(&unchecked, LogLevel::Info, false));
}

TEST(Readiness, WithoutAUsageSourceOnlyLoadsMatter) {
  Readiness r;
  EXPECT_EQ(r.problems(), "policies not loaded, certificates not loaded");
  r.setPoliciesLoaded(true);
  r.setCertificatesLoaded(true);
  EXPECT_EQ(r.problems(), "");
}

}  // namespace
}  // namespace gpua::server
