// Node supply end to end: the real binary, with the shipped policies, watches a (fake,
// in-process) Kubernetes API server that now serves nodes. The capacity check and the supply
// metrics follow the nodes as they appear, are cordoned, go NotReady, restart their device
// plugin, scale to zero and change their MIG layout (only the layout can deny; states only warn);
// pods binding and failing show in the queue metrics; `gpu-admission status` prints the pools.
#include <array>
#include <cstdio>
#include <regex>
#include <thread>

#include "e2e_fake_cluster.hpp"

namespace gpua::testing {
namespace {

using namespace std::chrono_literals;

// An A100 node of the shipped infer-a100 pool with the MIG layout `allocatable`.
std::string a100Node(const std::string& name, const std::string& allocatable, bool ready = true,
                     bool cordoned = false) {
  return R"({"apiVersion":"v1","kind":"Node","metadata":{"name":")" + name +
         R"(","labels":{"nvidia.com/gpu.product":"NVIDIA-A100-SXM4-80GB",)"
         R"("nvidia.com/mig.strategy":"mixed","nvidia.com/mig.config.state":"success",)"
         R"("nvidia.com/gpu.count":"8","gpu-admission.io/pool":"infer-a100"}},"spec":{)" +
         (cordoned ? R"("unschedulable":true,)" : "") +
         R"("taints":[{"key":"nvidia.com/gpu","effect":"NoSchedule"}]},"status":{"allocatable":{)"
         R"("cpu":"96","memory":"1Ti","nvidia.com/gpu":"0",)" +
         allocatable + R"(},"conditions":[{"type":"Ready","status":")" +
         (ready ? "True" : "False") + R"("}]}})";
}

// The shipped layout without 2g.20gb, and one with it.
const std::string kNo2g = R"("nvidia.com/mig-1g.10gb":"7","nvidia.com/mig-3g.40gb":"2")";
const std::string kWith2g = R"("nvidia.com/mig-2g.20gb":"3","nvidia.com/mig-1g.10gb":"1")";

// An inference pod (KServe) asking for one whole GPU: the class rewrites it to a 2g.20gb slice.
std::string inferencePod(const std::string& name, const std::string& extraMetadata = "",
                         const std::string& node = "", const std::string& status = "",
                         const std::string& resource = "nvidia.com/gpu") {
  return R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":")" + name +
         R"(","namespace":"serving","uid":"uid-)" + name +
         R"(","creationTimestamp":"2026-12-01T08:00:00Z","labels":{"serving.kserve.io/inferenceservice":"llm"})" +
         extraMetadata + R"(},"spec":{)" + (node.empty() ? "" : R"("nodeName":")" + node + "\",") +
         R"("containers":[{"name":"main","image":"vllm","resources":{"limits":{")" + resource +
         R"(":"1"}}}]})" + (status.empty() ? "" : R"(,"status":)" + status) + "}";
}

std::string reviewOf(const std::string& pod) {
  return R"({"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"r-1",)"
         R"("kind":{"group":"","version":"v1","kind":"Pod"},)"
         R"("resource":{"group":"","version":"v1","resource":"pods"},"namespace":"serving",)"
         R"("operation":"CREATE","userInfo":{"username":"alice"},"object":)" +
         pod + "}}";
}

struct Answer {
  bool allowed = false;
  std::string message, rules, warnings, raw;
  std::vector<std::string> warningLines;  // as kubectl prints them, one "Warning:" each
  std::string joined;  // the warnings with their 120-character lines joined again, one a line
};

// Joins the lines of a warning the webhook split ("...<newline>... ").
std::string joinLines(const std::vector<std::string>& lines) {
  std::string out;
  for (const auto& line : lines) {
    if (out.ends_with("...") && line.starts_with("... ")) {
      out.resize(out.size() - 3);
      out.append(line, 4);
    } else {
      out.append(out.empty() ? "" : "\n").append(line);
    }
  }
  return out;
}

Answer answerOf(const ClientResponse& res) {
  Answer a;
  a.raw = res.body;
  const auto doc = parseJson(res.body);
  if (res.status != 200 || !doc.IsObject() || !doc.HasMember("response")) return a;
  const auto& r = doc["response"];
  a.allowed = r["allowed"].GetBool();
  if (r.HasMember("status") && r["status"].HasMember("message"))
    a.message = r["status"]["message"].GetString();
  if (r.HasMember("auditAnnotations") && r["auditAnnotations"].HasMember("violation-rules"))
    a.rules = r["auditAnnotations"]["violation-rules"].GetString();
  // The whole message: warnings come in lines of 120 characters, the audit annotation whole.
  if (r.HasMember("auditAnnotations") && r["auditAnnotations"].HasMember("violation"))
    a.message = r["auditAnnotations"]["violation"].GetString();
  if (r.HasMember("warnings"))
    for (const auto& w : r["warnings"].GetArray()) {
      a.warnings += std::string(w.GetString()) + "\n";
      a.warningLines.emplace_back(w.GetString(), w.GetStringLength());
    }
  a.joined = joinLines(a.warningLines);
  return a;
}

// Output and exit status of a shell command.
std::pair<int, std::string> run(const std::string& command) {
  std::string out;
  FILE* p = ::popen((command + " 2>&1").c_str(), "r");
  if (p == nullptr) return {-1, ""};
  std::array<char, 4096> buf{};
  while (std::fgets(buf.data(), buf.size(), p) != nullptr) out += buf.data();
  const int status = ::pclose(p);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, out};
}

class E2eSupplyTest : public FakeClusterE2eTest {
 protected:
  void SetUp() override {
    // env=dev: the shipped rollout enforces there; the shipped capacityCheck (warn) still only
    // warns about capacity.
    api_.upsertNamespace("serving",
                         {{"gpu-admission.io/serving", "true"}, {"team", "nlp"}, {"env", "dev"}});
    api_.upsertNode(a100Node("a100-1", kNo2g));
    api_.upsertNode(a100Node("a100-2", kNo2g));
  }

  // The shipped policies (capacityCheck: warn), or with `capacityDeny` the policy tests'
  // fixture that sets capacityCheck: deny on top of them.
  void startWatching(int readyA100Nodes, bool capacityDeny = false) {
    std::string policies = std::string(GPUA_REPO_ROOT) + "/policies";
    if (capacityDeny)
      policies.append(",").append(GPUA_REPO_ROOT).append("/policy-tests/fixtures/capacity-deny");
    start({"--kubeconfig", kubeconfig()}, policies);
    ASSERT_TRUE(eventually([&] { return hasMetric(readyNodes(readyA100Nodes)); })) << metrics();
  }

  static std::string readyNodes(int n) {
    return "gpu_admission_pool_nodes{pool=\"infer-a100\",state=\"ready\"} " + std::to_string(n) +
           "\n";
  }
  bool hasMetric(const std::string& line) { return metrics().find(line) != std::string::npos; }
  Answer admit(const std::string& pod) { return answerOf(post("/admit", reviewOf(pod))); }
  bool noCapacity(const std::string& pod) {
    const auto a = admit(pod);
    return a.rules.find("no-capacity") != std::string::npos;
  }
  bool admitted(const std::string& pod) {
    const auto a = admit(pod);
    return a.allowed && a.rules.find("no-capacity") == std::string::npos;
  }
  // Admitted without a capacity finding, with a warning saying why it will wait.
  bool waits(const std::string& pod, const std::string& why) {
    const auto a = admit(pod);
    return a.allowed && a.rules.empty() && a.joined.find(why) != std::string::npos;
  }
  bool deniedNoCapacity(const std::string& pod) {
    const auto a = admit(pod);
    return !a.allowed && a.rules == "no-capacity";
  }
};

TEST_F(E2eSupplyTest, NoCapacityNamesTheProfilesUntilANodeAdvertisesTheRewrittenOne) {
  startWatching(2);
  const auto pod = inferencePod("llm-0");
  const auto first = admit(pod);
  EXPECT_TRUE(first.allowed) << "capacityCheck warn never denies: " << first.raw;
  EXPECT_NE(first.rules.find("no-capacity"), std::string::npos) << first.raw;
  EXPECT_NE(first.warnings.find("gpu-admission (capacity warning): "), std::string::npos)
      << first.raw;
  for (const char* text : {"pool infer-a100 offers", "nvidia.com/mig-1g.10gb (7 per node)",
                           "nvidia.com/mig-3g.40gb (2)", "none offers nvidia.com/mig-2g.20gb"})
    EXPECT_NE(first.message.find(text), std::string::npos) << text << " in: " << first.message;
  // At most 120 characters a warning line. The capacity warning is longer: it comes as
  // several lines, the numbers in the first and the fix in the last.
  ASSERT_GE(first.warningLines.size(), 3u) << first.raw;
  for (const auto& line : first.warningLines) EXPECT_LE(line.size(), 120u) << line;
  EXPECT_NE(first.warnings.find("... pool infer-a100 offers nvidia.com/mig-1g.10gb (7 per node)"),
            std::string::npos)
      << first.raw;
  EXPECT_NE(first.warningLines.back().find("change the class's migProfile or the pool's MIG"),
            std::string::npos)
      << first.raw;

  // a100-3 joins with the profile, NotReady and cordoned: it is part of the pool's layout
  // whatever its state, so the finding goes and the pod is admitted to wait for it.
  api_.upsertNode(a100Node("a100-3", kWith2g, /*ready=*/false, /*cordoned=*/true));
  ASSERT_TRUE(eventually([&] {
    return waits(pod,
                 "admitted: no Ready, schedulable node of pool infer-a100 advertises 1 "
                 "nvidia.com/mig-2g.20gb now (the most is 0; 3 nodes: 2 Ready and schedulable, 1 "
                 "not ready, 1 cordoned); the pod will wait until one does");
  })) << admit(pod).raw;

  api_.upsertNode(a100Node("a100-3", kWith2g));
  ASSERT_TRUE(eventually([this] { return hasMetric(readyNodes(3)); })) << metrics();
  const auto ready = admit(pod);
  EXPECT_TRUE(ready.allowed && ready.rules.empty()) << ready.raw;
  EXPECT_EQ(ready.joined.find("admitted: "), std::string::npos) << ready.raw;
  const auto m = metrics();
  EXPECT_NE(m.find("gpu_admission_pool_allocatable{pool=\"infer-a100\",resource=\"nvidia.com/"
                   "mig-2g.20gb\"} 3\n"),
            std::string::npos)
      << m;
  EXPECT_NE(m.find("gpu_admission_pool_allocatable{pool=\"infer-a100\",resource=\"nvidia.com/"
                   "mig-1g.10gb\"} 15\n"),
            std::string::npos)
      << m;
}

// With capacityCheck: deny, node states never deny (the pod is admitted and
// waits, the warning says why, the metrics follow the states); only the MIG layout does.
TEST_F(E2eSupplyTest, NodeStatesWarnAndOnlyTheMigLayoutDenies) {
  api_.upsertNode(a100Node("a100-3", kWith2g));
  startWatching(3, /*capacityDeny=*/true);
  const auto pod = inferencePod("llm-1");
  ASSERT_TRUE(eventually([&] { return admitted(pod); })) << admit(pod).raw;

  // a100-3, the only node with 2g.20gb slices, is cordoned, then NotReady.
  api_.upsertNode(a100Node("a100-3", kWith2g, true, /*cordoned=*/true));
  EXPECT_TRUE(eventually([this] {
    return hasMetric("gpu_admission_pool_nodes{pool=\"infer-a100\",state=\"cordoned\"} 1\n");
  })) << metrics();
  EXPECT_TRUE(eventually([&] {
    return waits(pod,
                 "advertises 1 nvidia.com/mig-2g.20gb now (the most is 0; 3 nodes: 2 Ready "
                 "and schedulable, 1 cordoned); the pod will wait until one does");
  })) << admit(pod).raw;

  api_.upsertNode(a100Node("a100-3", kWith2g, /*ready=*/false));
  EXPECT_TRUE(eventually([this] {
    return hasMetric("gpu_admission_pool_nodes{pool=\"infer-a100\",state=\"not_ready\"} 1\n") &&
           hasMetric("gpu_admission_pool_nodes{pool=\"infer-a100\",state=\"cordoned\"} 0\n");
  })) << metrics();
  EXPECT_TRUE(eventually([&] {
    return waits(pod, "(the most is 0; 3 nodes: 2 Ready and schedulable, 1 not ready)");
  })) << admit(pod).raw;

  // The device plugin restarts everywhere: every profile at 0 on every node.
  const std::string zeros =
      R"("nvidia.com/mig-1g.10gb":"0","nvidia.com/mig-2g.20gb":"0","nvidia.com/mig-3g.40gb":"0")";
  for (const char* name : {"a100-1", "a100-2", "a100-3"}) api_.upsertNode(a100Node(name, zeros));
  EXPECT_TRUE(eventually([&] {
    return waits(pod,
                 "admitted: no node of pool infer-a100 advertises a GPU now (3 nodes: 3 "
                 "Ready and schedulable; a device plugin starting or restarting?); the pod "
                 "will wait until one advertises 1 nvidia.com/mig-2g.20gb");
  })) << admit(pod).raw;
  EXPECT_TRUE(
      hasMetric("gpu_admission_pool_allocatable{pool=\"infer-a100\",resource=\"nvidia.com/"
                "mig-2g.20gb\"} 0\n"))
      << metrics();

  // The autoscaler scales the pool to zero: a denied pod would never be pending, and only a
  // pending pod makes it scale up again.
  for (const char* name : {"a100-1", "a100-2", "a100-3"}) api_.deleteNode(name);
  EXPECT_TRUE(eventually([this] { return hasMetric(readyNodes(0)); })) << metrics();
  EXPECT_TRUE(eventually([&] {
    return waits(pod,
                 "admitted: pool infer-a100 has no nodes now; the pod will wait until one "
                 "joins (autoscalers add nodes for pending pods;");
  })) << admit(pod).raw;

  // The nodes come back with a layout without 2g.20gb: structural, denied.
  api_.upsertNode(a100Node("a100-1", kNo2g));
  api_.upsertNode(a100Node("a100-2", kNo2g, /*ready=*/false));
  EXPECT_TRUE(eventually([&] { return deniedNoCapacity(pod); })) << admit(pod).raw;
  const auto denied = admit(pod);
  EXPECT_NE(denied.raw.find("none offers nvidia.com/mig-2g.20gb"), std::string::npos) << denied.raw;

  // a100-1 is re-partitioned with 2g.20gb slices: the pod fits again.
  api_.upsertNode(a100Node("a100-1", kWith2g));
  EXPECT_TRUE(eventually([&] { return admitted(pod); })) << admit(pod).raw;
}

TEST_F(E2eSupplyTest, QueueMetricsAndTheStatusCommand) {
  api_.upsertNode(a100Node("a100-3", kWith2g));
  api_.upsertPod(
      inferencePod("waiting", R"(,"annotations":{"gpu-admission.io/class":"inference"})"));
  startWatching(3);
  const std::string pending =
      "gpu_admission_pending_pods{class=\"inference\",pool=\"infer-a100\"} 1\n";
  ASSERT_TRUE(eventually([&] { return hasMetric(pending); })) << metrics();

  // Bound 2 minutes after creation (with the slice the webhook rewrote it to): one schedule
  // wait, between 1 and 5 minutes.
  api_.upsertPod(inferencePod(
      "waiting", R"(,"annotations":{"gpu-admission.io/class":"inference"})", "a100-3",
      R"({"phase":"Running","conditions":[{"type":"PodScheduled","status":"True","lastTransitionTime":"2026-12-01T08:02:00Z"}]})",
      "nvidia.com/mig-2g.20gb"));
  ASSERT_TRUE(eventually([&] {
    return hasMetric("gpu_admission_schedule_wait_seconds_count{class=\"inference\"} 1\n");
  })) << metrics();
  auto m = metrics();
  EXPECT_NE(m.find("gpu_admission_schedule_wait_seconds_bucket{class=\"inference\",le=\"60\"} 0\n"),
            std::string::npos)
      << m;
  EXPECT_NE(
      m.find("gpu_admission_schedule_wait_seconds_bucket{class=\"inference\",le=\"300\"} 1\n"),
      std::string::npos)
      << m;
  EXPECT_TRUE(eventually([&] {
    return hasMetric(
        "gpu_admission_pool_allocated{pool=\"infer-a100\",resource=\"nvidia.com/"
        "mig-2g.20gb\"} 1\n");
  })) << metrics();

  api_.upsertPod(inferencePod("crashed", R"(,"annotations":{"gpu-admission.io/class":"inference"})",
                              "a100-3", R"({"phase":"Failed","reason":"UnexpectedAdmissionError"})",
                              "nvidia.com/mig-2g.20gb"));
  EXPECT_TRUE(eventually([&] {
    return hasMetric(
        "gpu_admission_pod_start_failures_total{class=\"inference\",reason="
        "\"UnexpectedAdmissionError\"} 1\n");
  })) << metrics();

  const auto [code, out] = run(std::string(GPUA_BINARY) + " status --kubeconfig " + kubeconfig() +
                               " --policies " + GPUA_REPO_ROOT + "/policies");
  EXPECT_EQ(code, 0) << out;
  std::string flat;
  for (char c : out)
    if (c != ' ' || (!flat.empty() && flat.back() != ' ')) flat.push_back(c);
  EXPECT_NE(flat.find("POOL NODES RESOURCE ALLOCATABLE ALLOCATED FREE PENDING OLDEST\n"),
            std::string::npos)
      << out;
  EXPECT_NE(flat.find(" nvidia.com/mig-2g.20gb 3 1 2\n"), std::string::npos) << out;
  EXPECT_NE(flat.find("infer-a100 3/3 "), std::string::npos) << out;
}

}  // namespace
}  // namespace gpua::testing
