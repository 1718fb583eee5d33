// The usage source against a real (test) API server over TLS: list, watch, reconnects, 410s,
// token rotation, availability, and quota decisions through the engine.
#include "cluster/cluster_usage_source.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <iostream>
#include <mutex>
#include <regex>

#include "engine/decide.hpp"
#include "support/cluster_fixtures.hpp"
#include "support/fake_api_server.hpp"

namespace gpua::cluster {
namespace {

using namespace std::chrono_literals;
using testing::eventually;
using testing::FakeApiServer;
using testing::fakeKubeconfigYaml;
using testing::loadPolicy;
using testing::parse;
using testing::podJson;
using testing::PodSpec;
using testing::policyYaml;
using testing::TempDir;

// `number` as a whole number in `text` (so "4" does not match inside "14").
bool hasNumber(const std::string& text, const std::string& number) {
  return std::regex_search(text, std::regex("(^|[^0-9.])" + number + "([^0-9.]|$)"));
}

class ClusterSourceTest : public ::testing::Test {
 protected:
  FakeApiServer server;
  TempDir dir;
  std::mutex mutex;  // guards policy and logs: the watch thread reads and writes them
  std::shared_ptr<const policy::PolicySet> policy = loadPolicy(policyYaml("failClosed"));
  std::vector<std::string> logs;
  // Declared before `source`, so it outlives it: the source's ticks write into it until
  // TearDown stops them (a registry local to a test body is gone by then).
  telemetry::Registry registry;
  std::shared_ptr<ClusterUsageSource> source;

  void SetUp() override {
    server.upsertNamespace("vision", {{"team", "vision"}});
    server.upsertNamespace("nlp", {{"team", "nlp"}});
  }
  void TearDown() override {
    if (source) source->stop();
    if (!HasFailure() && std::getenv("GPUA_TEST_LOGS") == nullptr) return;
    for (const auto& l : logs) std::cerr << "log: " << l << "\n";
    for (const auto& r : server.requests()) std::cerr << "request: " << r << "\n";
  }

  std::string kubeconfig(const std::string& ca, const std::string& token) {
    dir.write("ca.crt", ca);
    dir.write("token", token);
    return dir.write("config", fakeKubeconfigYaml(server.port(), "{tokenFile: token}"));
  }

  ClusterOptions options(const std::string& ca, const std::string& token = "") {
    ClusterOptions o;
    o.kubeconfig = kubeconfig(ca, token);
    o.unavailableGrace = 300ms;
    o.publishInterval = 10ms;
    o.listWatch.backoffInitial = 20ms;
    o.listWatch.backoffMax = 100ms;
    o.listWatch.requestTimeout = 2s;
    o.listWatch.watchIdleTimeout = 5s;
    o.listWatch.listPageSize = 2;
    o.log = [this](std::string_view level, std::string_view message) {
      std::lock_guard lock(mutex);
      const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                          std::chrono::steady_clock::now().time_since_epoch())
                          .count() %
                      100'000;
      logs.push_back(std::to_string(ms) + " " + std::string(level) + ": " + std::string(message));
    };
    return o;
  }

  void start(const std::string& token = "") {
    source = startClusterUsageSource(options(server.caPem(), token), [this] {
      std::lock_guard lock(mutex);
      return policy;
    });
  }

  void startSynced(const std::string& token = "") {
    start(token);
    ASSERT_TRUE(eventually([&] { return source->synced(); })) << source->lastError();
  }

  double ge(const std::string& ns) const {
    const auto s = source->current();
    const auto it = s->namespaces.find(ns);
    return it == s->namespaces.end() ? 0.0 : it->second.gpuEquivalents;
  }

  bool geBecomes(const std::string& ns, double value) {
    return eventually([&] { return std::abs(ge(ns) - value) < 1e-9; });
  }

  void addTraining(const std::string& name, int gpus, const std::string& ns = "vision") {
    server.upsertPod(podJson({.ns = ns,
                              .name = name,
                              .cls = "training",
                              .limits = {{"nvidia.com/gpu", std::to_string(gpus)}}}));
  }

  engine::Decision decideNewPod(const PodSpec& p) {
    const auto snapshot = source->current();
    engine::RequestContext ctx;
    ctx.namespaceName = p.ns;
    if (auto it = snapshot->namespaceLabels.find(p.ns); it != snapshot->namespaceLabels.end())
      ctx.namespaceLabels = it->second;
    std::lock_guard lock(mutex);
    return engine::decide(parse(podJson(p)), ctx, *policy, *snapshot);
  }
};

TEST_F(ClusterSourceTest, UnsyncedBeforeFirstListThenPaginatedInitialSync) {
  addTraining("t1", 8);
  addTraining("t2", 2);
  server.upsertPod(podJson({.name = "done",
                            .cls = "training",
                            .limits = {{"nvidia.com/gpu", "8"}},
                            .phase = "Succeeded"}));
  server.upsertPod(podJson({.name = "cpu", .limits = {{"cpu", "1"}}}));
  addTraining("n1", 3, "nlp");
  server.setForbidden("namespaces", true);
  start();
  // Pods list fine, namespaces are forbidden: not synced, and the reason names the RBAC rule.
  ASSERT_TRUE(eventually([&] {
    return source->current()->unavailableReason.find("403") != std::string::npos;
  })) << source->current()->unavailableReason;
  EXPECT_FALSE(source->synced());
  EXPECT_FALSE(source->current()->available);
  EXPECT_EQ(source->current()->unavailableReason,
            "Kubernetes API not synced yet: Kubernetes API forbids GET https://127.0.0.1:" +
                std::to_string(server.port()) +
                "/api/v1/namespaces (403 Forbidden): grant the webhook's service account RBAC "
                "verbs [list, watch] on resource \"namespaces\" (apiGroups [\"\"]) in a "
                "ClusterRole: namespaces is forbidden: User "
                "\"system:serviceaccount:gpu-admission:gpu-admission\" cannot list resource "
                "\"namespaces\" in API group \"\" at the cluster scope");

  server.setForbidden("namespaces", false);
  ASSERT_TRUE(eventually([&] { return source->synced(); }));
  const auto s = source->current();
  EXPECT_TRUE(s->available);
  EXPECT_NEAR(s->namespaces.at("vision").gpuEquivalents, 10, 1e-9);
  EXPECT_NEAR(s->namespaces.at("nlp").gpuEquivalents, 3, 1e-9);
  EXPECT_EQ(s->namespaceLabels.at("vision").at("team"), "vision");
  EXPECT_EQ(source->metrics().ledgerPods.load(), 3u);
  // 5 pods, pages of 2: limit + continue, then a watch from the list's resourceVersion.
  EXPECT_GE(server.count("/api/v1/pods?limit=2&continue="), 2);
  ASSERT_TRUE(
      eventually([&] { return server.count("/api/v1/pods?watch=1&resourceVersion=") >= 1; }));
  EXPECT_GE(server.count("&allowWatchBookmarks=true&timeoutSeconds=300"), 1);
}

TEST_F(ClusterSourceTest, MetricsReachThePrometheusRegistry) {
  addTraining("t1", 2);
  auto o = options(server.caPem());
  o.registry = &registry;
  o.geSecondsExportInterval = 10ms;
  source = startClusterUsageSource(o, [this] { return policy; });
  ASSERT_TRUE(eventually([&] { return source->synced() && server.openWatches() == 3; }));
  server.dropWatches();
  const std::string restarts = "gpu_admission_watch_restarts_total{resource=\"pods\"} 1\n";
  const std::string geSeconds =
      "gpu_admission_gpu_equivalent_seconds_total{namespace=\"vision\",class=\"training\"} ";
  EXPECT_TRUE(eventually([&] {
    const auto text = registry.render();
    return text.find(restarts) != std::string::npos && text.find(geSeconds) != std::string::npos;
  })) << registry.render();
  EXPECT_NE(registry.render().find("gpu_admission_ledger_pods 1\n"), std::string::npos);
  source->stop();  // the registry outlives the source; its gauges stay readable
  EXPECT_NE(registry.render().find("gpu_admission_watch_last_event_age_seconds "),
            std::string::npos);
}

TEST_F(ClusterSourceTest, WatchAddModifyDeleteUpdatesUsage) {
  addTraining("t1", 4);
  startSynced();
  EXPECT_NEAR(ge("vision"), 4, 1e-9);
  addTraining("t2", 2);
  EXPECT_TRUE(geBecomes("vision", 6));
  server.upsertPod(podJson(
      {.name = "t2", .cls = "training", .limits = {{"nvidia.com/gpu", "2"}}, .phase = "Failed"}));
  EXPECT_TRUE(geBecomes("vision", 4));
  server.upsertPod(podJson(
      {.name = "t1", .cls = "training", .limits = {{"nvidia.com/gpu", "4"}}, .deleting = true}));
  EXPECT_TRUE(geBecomes("vision", 0));
  server.deletePod("vision", "t1");
  server.upsertNamespace("vision", {{"team", "vision"}, {"env", "dev"}});
  ASSERT_TRUE(eventually(
      [&] { return source->current()->namespaceLabels.at("vision").count("env") == 1; }));
  EXPECT_GE(source->metrics().eventsApplied.load(), 5u);
  EXPECT_GT(source->metrics().lastEventUnixMs.load(), 0);
}

TEST_F(ClusterSourceTest, BrokenWatchResumesFromResourceVersionWithoutDoubleCounting) {
  addTraining("t1", 4);
  startSynced();
  const int lists = server.count("/api/v1/pods?limit=");
  ASSERT_TRUE(eventually([&] { return server.openWatches() == 3; }));
  for (int round = 0; round < 3; ++round) {
    const int watches = server.count("?watch=1");
    server.dropWatches(/*midEvent=*/round % 2 == 0);
    addTraining("r" + std::to_string(round), 1);
    // All three watches (pods, namespaces, nodes) come back before the next drop.
    ASSERT_TRUE(eventually(
        [&] { return server.count("?watch=1") >= watches + 3 && server.openWatches() == 3; }));
  }
  server.bookmark();
  EXPECT_TRUE(geBecomes("vision", 7));
  EXPECT_EQ(server.count("/api/v1/pods?limit="), lists);  // resumed, never re-listed
  EXPECT_GE(source->metrics().watchRestarts.load(), 6u);
  EXPECT_NEAR(ge("vision"), 7, 1e-9);
  EXPECT_TRUE(source->current()->available);  // short drops stay within the grace period
}

TEST_F(ClusterSourceTest, GoneAfterCompactionRelists) {
  for (bool http410 : {false, true}) {
    SCOPED_TRACE(http410 ? "410 as HTTP status" : "410 as ERROR event");
    if (!source) startSynced();
    addTraining("keep", 2);
    addTraining("gone", 3);
    ASSERT_TRUE(geBecomes("vision", 5));
    const int lists = server.count("/api/v1/pods?limit=");
    const auto relists = source->metrics().relists.load();
    server.setReachable(false);  // the client misses the next events...
    server.deletePod("vision", "gone");
    addTraining("new", 1);
    server.compact(http410);  // ...and they fall out of the server's history
    server.setReachable(true);
    EXPECT_TRUE(geBecomes("vision", 3));
    EXPECT_GT(server.count("/api/v1/pods?limit="), lists);
    EXPECT_GT(source->metrics().relists.load(), relists);
    server.deletePod("vision", "keep");
    server.deletePod("vision", "new");
    ASSERT_TRUE(geBecomes("vision", 0));  // and the watch after the re-list works
  }
}

TEST_F(ClusterSourceTest, RotatedTokenIsReadFromTheFile) {
  server.setToken("token-1");
  addTraining("t1", 1);
  startSynced("token-1");
  server.setToken("token-2");  // the old token stops working; open watches are closed
  ASSERT_TRUE(eventually([&] {
    return server.count("token=token-1") > 0 &&
           source->lastError().find("401 Unauthorized") != std::string::npos;
  }));
  dir.write("token", "token-2\n");  // the kubelet rotates the projected token
  addTraining("t2", 2);
  EXPECT_TRUE(geBecomes("vision", 3));
  EXPECT_GE(server.count("token=token-2"), 1);
}

TEST_F(ClusterSourceTest, UnreachableApiFailsClosedOrOpenForQuotasOnly) {
  addTraining("t1", 8);
  startSynced();
  server.setReachable(false);
  ASSERT_TRUE(eventually([&] { return !source->current()->available; }));
  const auto reason = source->current()->unavailableReason;
  EXPECT_EQ(reason.rfind("Kubernetes API unreachable (", 0), 0u) << reason;
  EXPECT_FALSE(source->metrics().available.load());

  const PodSpec pod{.name = "new", .cls = "training", .limits = {{"nvidia.com/gpu", "1"}}};
  const auto closed = decideNewPod(pod);
  ASSERT_FALSE(closed.allowed());
  ASSERT_EQ(closed.violations.size(), 1u);
  EXPECT_EQ(closed.violations[0].rule, "quota-unavailable");
  // The engine words the message; the quota and the source's reason are what must be there.
  EXPECT_NE(closed.denial->message.find("\"team-vision\""), std::string::npos)
      << closed.denial->message;
  EXPECT_NE(closed.denial->message.find("Kubernetes API unreachable"), std::string::npos)
      << closed.denial->message;
  {
    std::lock_guard lock(mutex);
    policy = loadPolicy(policyYaml("failOpen"));
  }
  const auto open = decideNewPod(pod);
  EXPECT_TRUE(open.allowed());
  ASSERT_FALSE(open.warnings.empty());
  EXPECT_NE(open.warnings.back().find("Kubernetes API unreachable"), std::string::npos)
      << open.warnings.back();
  // Other rules still apply while usage is unknown.
  const auto tooBig =
      decideNewPod({.name = "big", .cls = "training", .limits = {{"nvidia.com/gpu", "9"}}});
  EXPECT_FALSE(tooBig.allowed());

  server.setReachable(true);
  EXPECT_TRUE(eventually([&] { return source->current()->available; }));
  EXPECT_NEAR(ge("vision"), 8, 1e-9);
}

// Done when: 14 of 16 GPU-equivalents in use; 4 more whole GPUs are denied with a message that
// names the quota and the numbers; a 1g MIG slice that fits is admitted.
TEST_F(ClusterSourceTest, QuotaDecisionsFromLiveUsage) {
  addTraining("t1", 8);
  addTraining("t2", 4);
  for (const auto* name : {"i1", "i2"})
    server.upsertPod(
        podJson({.name = name, .cls = "inference", .limits = {{"nvidia.com/mig-1g.10gb", "7"}}}));
  addTraining("other-team", 8, "nlp");
  startSynced();
  ASSERT_NEAR(ge("vision"), 14, 1e-9);

  const auto denied =
      decideNewPod({.name = "more", .cls = "training", .limits = {{"nvidia.com/gpu", "4"}}});
  ASSERT_FALSE(denied.allowed());
  // The engine words the message: check the quota and the numbers (needs 4, 16 allowed, 14 used).
  const auto& message = denied.denial->message;
  EXPECT_NE(message.find("\"team-vision\""), std::string::npos) << message;
  for (const char* n : {"4", "16", "14"})
    EXPECT_TRUE(hasNumber(message, n)) << n << ": " << message;
  // The second broken rule is the training share: 12 of 14 in use.
  ASSERT_EQ(denied.violations.size(), 2u);
  EXPECT_EQ(denied.violations[0].rule, "quota");
  EXPECT_EQ(denied.violations[1].rule, "quota");
  const auto& share = denied.violations[1].message;
  EXPECT_NE(share.find("training"), std::string::npos) << share;
  for (const char* n : {"14", "12"}) EXPECT_TRUE(hasNumber(share, n)) << n << ": " << share;

  const auto mig =
      decideNewPod({.name = "small", .cls = "inference", .limits = {{"nvidia.com/gpu", "1"}}});
  EXPECT_TRUE(mig.allowed()) << (mig.denial ? mig.denial->message : "");
  EXPECT_NEAR(mig.gpuEquivalents, 1.0 / 7, 1e-9);
}

TEST_F(ClusterSourceTest, PolicyRevisionChangeReclassifiesPods) {
  server.upsertPod(
      podJson({.name = "x", .cls = "experimental", .limits = {{"nvidia.com/gpu", "2"}}}));
  startSynced();
  EXPECT_TRUE(source->current()->namespaces.at("vision").byClass.empty());
  const int lists = server.count("/api/v1/pods?limit=");
  {
    std::lock_guard lock(mutex);
    auto yaml = policyYaml();
    yaml.replace(yaml.find("  - name: interactive"), 0,
                 "  - name: experimental\n    match: {any: [{labels: {gpu-admission.io/class: "
                 "experimental}}]}\n    pools: [train-h100]\n");
    policy = loadPolicy(yaml);
  }
  ASSERT_TRUE(eventually([&] {
    const auto& byClass = source->current()->namespaces.at("vision").byClass;
    return byClass.count("experimental") == 1;
  }));
  EXPECT_GT(server.count("/api/v1/pods?limit="), lists);
}

TEST_F(ClusterSourceTest, WrongCaIsReportedAndRetried) {
  FakeApiServer other;  // a different self-signed CA
  source = startClusterUsageSource(options(other.caPem()), [this] {
    std::lock_guard lock(mutex);
    return policy;
  });
  ASSERT_TRUE(
      eventually([&] { return source->lastError().find("TLS handshake") != std::string::npos; }));
  EXPECT_NE(source->lastError().find("certificate verify failed"), std::string::npos)
      << source->lastError();
  EXPECT_FALSE(source->synced());
  EXPECT_FALSE(source->current()->available);
}

TEST_F(ClusterSourceTest, UnreachableHostIsReportedByName) {
  ClusterOptions o = options(server.caPem());
  std::string config = R"(apiVersion: v1
current-context: c
contexts: [{name: c, context: {cluster: x}}]
clusters: [{name: x, cluster: {server: "https://127.0.0.1:1"}}]
)";
  o.kubeconfig = dir.write("closed", config);
  source = startClusterUsageSource(o, [this] { return policy; });
  ASSERT_TRUE(eventually([&] { return !source->lastError().empty(); }));
  EXPECT_EQ(source->lastError(),
            "cannot connect to the Kubernetes API at https://127.0.0.1:1: Connection refused");
  EXPECT_TRUE(eventually([&] {
    return source->current()->unavailableReason ==
           "Kubernetes API not synced yet: " + source->lastError();
  })) << source->current()->unavailableReason;
}

TEST_F(ClusterSourceTest, MissingKubeconfigFailsAtStart) {
  ClusterOptions o;
  o.kubeconfig = dir.file("nothing");
  EXPECT_THROW(startClusterUsageSource(o, [this] { return policy; }), ClusterConfigError);
}

// ---- nodes: the supply snapshot beside the usage snapshot ----

std::string nodeJson(const std::string& name, const std::string& allocatable, bool ready = true,
                     bool cordoned = false, const std::string& pool = "infer-a100") {
  return R"({"apiVersion":"v1","kind":"Node","metadata":{"name":")" + name +
         R"(","labels":{"gpu-admission.io/pool":")" + pool + R"("}},"spec":{"unschedulable":)" +
         (cordoned ? "true" : "false") +
         R"(},"status":{"allocatable":{"cpu":"96","memory":"1Ti",)" + allocatable +
         R"(},"conditions":[{"type":"Ready","status":")" + (ready ? "True" : "False") + R"("}]}})";
}

std::string boundPod(const std::string& name, const std::string& node, const std::string& resource,
                     int units, const std::string& phase = "Running",
                     const std::string& extraStatus = "") {
  return R"({"metadata":{"name":")" + name + R"(","namespace":"vision","uid":"uid-)" + name +
         R"(","creationTimestamp":"2026-01-01T00:00:00Z","labels":{"gpu-admission.io/class":"inference"}},"spec":{)" +
         (node.empty() ? "" : R"("nodeName":")" + node + "\",") +
         R"("containers":[{"name":"c","resources":{"limits":{")" + resource + R"(":")" +
         std::to_string(units) + R"("}}}]},"status":{"phase":")" + phase + "\"" + extraStatus +
         "}}";
}

class NodeSourceTest : public ClusterSourceTest {
 protected:
  std::shared_ptr<const engine::SupplySnapshot> supply() { return source->currentSupply(); }
  const engine::NodeSupply* node(const engine::SupplySnapshot& s, const std::string& name) {
    for (const auto& n : s.nodes)
      if (n.name == name) return &n;
    return nullptr;
  }
  // Waits until node `name` satisfies `check` in the published supply.
  bool nodeBecomes(const std::string& name,
                   const std::function<bool(const engine::NodeSupply&)>& check) {
    return eventually([&] {
      const auto s = supply();
      const auto* n = node(*s, name);
      return s->available && n != nullptr && check(*n);
    });
  }
  ClusterOptions nodeOptions() {
    auto o = options(server.caPem());
    o.supplyPublishInterval = 10ms;
    return o;
  }
};

TEST_F(NodeSourceTest, NodesAppearAreCordonedGoNotReadyAndChangeMigLayout) {
  server.upsertNode(nodeJson("a1", R"("nvidia.com/gpu":"0","nvidia.com/mig-1g.10gb":"7")"));
  server.upsertPod(boundPod("i1", "a1", "nvidia.com/mig-1g.10gb", 2));
  source = startClusterUsageSource(nodeOptions(), [this] { return policy; });
  EXPECT_FALSE(source->currentSupply()->available);  // nothing listed yet
  ASSERT_TRUE(nodeBecomes("a1", [](const engine::NodeSupply& n) {
    return n.ready && n.allocatable.at("nvidia.com/mig-1g.10gb") == 7 &&
           n.allocated.at("nvidia.com/mig-1g.10gb") == 2 && n.cpuMillis == 96000;
  })) << source->currentSupply()->unavailableReason;
  EXPECT_TRUE(source->metrics().supplySynced.load());
  // Folded per pool by the source, for the policy in force.
  EXPECT_EQ(supply()->policyRevision, policy->revision);
  ASSERT_NE(supply()->pool("infer-a100"), nullptr);
  EXPECT_EQ(supply()->pool("infer-a100")->nodesSchedulable, 1);
  EXPECT_EQ(supply()->pool("infer-a100")->resources.at("nvidia.com/mig-1g.10gb").allocated, 2);

  server.upsertNode(nodeJson("a2", R"("nvidia.com/mig-1g.10gb":"7")"));
  ASSERT_TRUE(nodeBecomes("a2", [](const engine::NodeSupply& n) { return n.ready; }));
  server.upsertNode(nodeJson("a2", R"("nvidia.com/mig-1g.10gb":"7")", true, /*cordoned=*/true));
  ASSERT_TRUE(nodeBecomes("a2", [](const engine::NodeSupply& n) { return n.unschedulable; }));
  server.upsertNode(nodeJson("a2", R"("nvidia.com/mig-1g.10gb":"7")", /*ready=*/false, true));
  ASSERT_TRUE(nodeBecomes("a2", [](const engine::NodeSupply& n) { return !n.ready; }));
  // The MIG layout changes: 1g.10gb slices become 2g.20gb.
  server.upsertNode(nodeJson("a1", R"("nvidia.com/mig-2g.20gb":"3")"));
  ASSERT_TRUE(nodeBecomes("a1", [](const engine::NodeSupply& n) {
    return n.allocatable.count("nvidia.com/mig-1g.10gb") == 0 &&
           n.allocatable.at("nvidia.com/mig-2g.20gb") == 3;
  }));
  server.deleteNode("a2");
  EXPECT_TRUE(eventually([&] { return supply()->nodes.size() == 1; }));
  // The pod still holds its slices on a1 until it ends.
  server.upsertPod(boundPod("i1", "a1", "nvidia.com/mig-1g.10gb", 2, "Succeeded"));
  EXPECT_TRUE(nodeBecomes("a1", [](const engine::NodeSupply& n) { return n.allocated.empty(); }));
}

TEST_F(NodeSourceTest, ForbiddenNodesLeaveUsageLiveAndSupplyUnavailable) {
  server.setForbidden("nodes", true);
  source = startClusterUsageSource(nodeOptions(), [this] { return policy; });
  ASSERT_TRUE(eventually([&] { return source->synced(); }));
  EXPECT_TRUE(source->current()->available);
  ASSERT_TRUE(eventually([&] {
    return supply()->unavailableReason.find("403 Forbidden") != std::string::npos;
  })) << supply()->unavailableReason;
  EXPECT_NE(supply()->unavailableReason.find("on resource \"nodes\""), std::string::npos);
  EXPECT_FALSE(supply()->available);
  server.setForbidden("nodes", false);
  EXPECT_TRUE(eventually([&] { return supply()->available; }));
}

TEST_F(NodeSourceTest, NodeWatchOffMeansNoNodeSource) {
  auto o = nodeOptions();
  o.watchNodes = false;
  source = startClusterUsageSource(o, [this] { return policy; });
  ASSERT_TRUE(eventually([&] { return source->synced(); }));
  EXPECT_EQ(server.count("/api/v1/nodes"), 0);
  EXPECT_FALSE(supply()->available);
  EXPECT_EQ(supply()->unavailableReason, "no node source (node watch is off)");
}

TEST_F(NodeSourceTest, NodeWatchExpiresAndRelistsLikeTheOthers) {
  server.upsertNode(nodeJson("a1", R"("nvidia.com/mig-1g.10gb":"7")"));
  source = startClusterUsageSource(nodeOptions(), [this] { return policy; });
  ASSERT_TRUE(nodeBecomes("a1", [](const engine::NodeSupply&) { return true; }));
  const int lists = server.count("/api/v1/nodes?limit=");
  server.setReachable(false);  // the client misses the next events...
  server.upsertNode(nodeJson("a3", R"("nvidia.com/mig-1g.10gb":"7")"));
  server.deleteNode("a1");
  server.compact();  // ...and they fall out of the server's history
  server.setReachable(true);
  EXPECT_TRUE(nodeBecomes("a3", [](const engine::NodeSupply&) { return true; }));
  EXPECT_TRUE(eventually([&] { return supply()->nodes.size() == 1; }));
  EXPECT_TRUE(eventually([&] { return server.count("/api/v1/nodes?limit=") > lists; }));
}

TEST_F(NodeSourceTest, QueueMetricsFollowPendingBindingAndFailures) {
  auto o = nodeOptions();
  o.registry = &registry;
  server.upsertPod(boundPod("w1", "", "nvidia.com/mig-1g.10gb", 1));
  source = startClusterUsageSource(o, [this] { return policy; });
  const std::string pending =
      "gpu_admission_pending_pods{class=\"inference\",pool=\"infer-a100\"} 1\n";
  ASSERT_TRUE(eventually([&] { return registry.render().find(pending) != std::string::npos; }))
      << registry.render();
  // Bound 90 s after creation: one observation in the 120 s bucket, none in the 60 s one.
  server.upsertPod(boundPod(
      "w1", "a1", "nvidia.com/mig-1g.10gb", 1, "Running",
      R"(,"conditions":[{"type":"PodScheduled","status":"True","lastTransitionTime":"2026-01-01T00:01:30Z"}])"));
  const std::string count = "gpu_admission_schedule_wait_seconds_count{class=\"inference\"} 1\n";
  ASSERT_TRUE(eventually([&] { return registry.render().find(count) != std::string::npos; }))
      << registry.render();
  const auto text = registry.render();
  EXPECT_NE(
      text.find("gpu_admission_schedule_wait_seconds_bucket{class=\"inference\",le=\"60\"} 0\n"),
      std::string::npos)
      << text;
  EXPECT_NE(
      text.find("gpu_admission_schedule_wait_seconds_bucket{class=\"inference\",le=\"120\"} 1\n"),
      std::string::npos);
  EXPECT_NE(text.find("gpu_admission_pending_pods{class=\"inference\",pool=\"infer-a100\"} 0\n"),
            std::string::npos);
  server.upsertPod(boundPod("f1", "a1", "nvidia.com/mig-1g.10gb", 1, "Failed",
                            R"(,"reason":"UnexpectedAdmissionError")"));
  const std::string failure =
      "gpu_admission_pod_start_failures_total{class=\"inference\",reason="
      "\"UnexpectedAdmissionError\"} 1\n";
  EXPECT_TRUE(eventually([&] { return registry.render().find(failure) != std::string::npos; }))
      << registry.render();
  // team-vision: 16 GE, 14 for training; the running inference slice is 1/7.
  EXPECT_TRUE(eventually([&] {
    const auto t = registry.render();
    return t.find("gpu_admission_quota_limit{quota=\"team-vision\",scope=\"total\"} 16\n") !=
               std::string::npos &&
           t.find(
               "gpu_admission_quota_limit{quota=\"team-vision\",scope=\"class:training\"} 14\n") !=
               std::string::npos &&
           t.find("gpu_admission_quota_used{quota=\"team-vision\",scope=\"total\"} 0.142857") !=
               std::string::npos;
  })) << registry.render();
}

}  // namespace
}  // namespace gpua::cluster
