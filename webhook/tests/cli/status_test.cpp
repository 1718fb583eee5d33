// `gpu-admission status` from snapshot files: the pool, quota and class tables, and --output json.
#include <gtest/gtest.h>

#include <string>

#include "cli_harness.hpp"

namespace gpua::cli::test {
namespace {

// Two H100 nodes (one cordoned), one A100 MIG node, one GPU node no pool selects.
constexpr const char* kNodes = R"({"apiVersion": "v1", "kind": "List", "items": [
  {"kind": "Node", "metadata": {"name": "h1", "labels": {"gpu-admission.io/pool": "train"}},
   "spec": {"taints": [{"key": "nvidia.com/gpu", "effect": "NoSchedule"}]},
   "status": {"allocatable": {"cpu": "96", "memory": "1Ti", "nvidia.com/gpu": "8"},
              "conditions": [{"type": "Ready", "status": "True"}]}},
  {"kind": "Node", "metadata": {"name": "h2", "labels": {"gpu-admission.io/pool": "train"}},
   "spec": {"unschedulable": true, "taints": [{"key": "nvidia.com/gpu", "effect": "NoSchedule"}]},
   "status": {"allocatable": {"cpu": "96", "memory": "1Ti", "nvidia.com/gpu": "8"},
              "conditions": [{"type": "Ready", "status": "True"}]}},
  {"kind": "Node", "metadata": {"name": "a1", "labels": {"nvidia.com/mig.strategy": "mixed"}},
   "status": {"allocatable": {"nvidia.com/gpu": "0", "nvidia.com/mig-1g.10gb": "7",
                              "nvidia.com/mig-2g.20gb": "3"},
              "conditions": [{"type": "Ready", "status": "True"}]}},
  {"kind": "Node", "metadata": {"name": "stray"},
   "status": {"allocatable": {"nvidia.com/gpu": "4"},
              "conditions": [{"type": "Ready", "status": "True"}]}}
]})";

std::string pod(const std::string& name, const std::string& ns, const std::string& labels,
                const std::string& resource, int units, const std::string& node,
                const std::string& created, const std::string& scheduledAt = "") {
  std::string conditions;
  if (!scheduledAt.empty())
    conditions = R"(,"conditions":[{"type":"PodScheduled","status":"True","lastTransitionTime":")" +
                 scheduledAt + R"("}])";
  return R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":")" + name + R"(","namespace":")" +
         ns + R"(","uid":"u-)" + name + R"(","creationTimestamp":")" + created + R"(","labels":)" +
         labels + R"(},"spec":{)" + (node.empty() ? "" : R"("nodeName":")" + node + "\",") +
         R"("containers":[{"name":"c","image":"i","resources":{"limits":{")" + resource + R"(":")" +
         std::to_string(units) + R"("}}}]},"status":{"phase":")" +
         (node.empty() ? "Pending" : "Running") + "\"" + conditions + "}}";
}

const std::string kTraining = R"({"gpu-admission.io/class":"training"})";
const std::string kServing = R"({"serving.kserve.io/inferenceservice":"llm"})";

// Now is 10:00. Training: 5 of h1's 8 GPUs taken (bound 10 and 30 minutes after creation, within
// the hour), two pods waiting, the oldest since 09:18. Inference: one 2g slice taken.
std::string pods() {
  return std::string(R"({"apiVersion":"v1","kind":"List","items":[)") +
         pod("t1", "team-a", kTraining, "nvidia.com/gpu", 3, "h1", "2026-12-01T09:00:00Z",
             "2026-12-01T09:10:00Z") +
         "," +
         pod("t2", "team-a", kTraining, "nvidia.com/gpu", 2, "h1", "2026-12-01T09:00:00Z",
             "2026-12-01T09:30:00Z") +
         "," + pod("t3", "team-a", kTraining, "nvidia.com/gpu", 8, "", "2026-12-01T09:18:00Z") +
         "," + pod("t4", "team-b", kTraining, "nvidia.com/gpu", 8, "", "2026-12-01T09:50:00Z") +
         "," +
         pod("s1", "team-b", kServing, "nvidia.com/mig-2g.20gb", 1, "a1", "2026-12-01T07:00:00Z",
             "2026-12-01T07:00:05Z") +
         "]}";
}

constexpr const char* kNow = "2026-12-01T10:00:00Z";

class StatusTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_.write("policies/policy.yaml", kTestPolicy);
    dir_.write("policies/quotas.yaml", R"(apiVersion: gpu-admission.io/v1
kind: GpuPolicy
metadata: {name: cli-test-quotas}
spec:
  quotas:
  - name: team-a
    namespaces: {names: [team-a]}
    gpuEquivalents: 16
    perClass: {training: 12}
)");
    dir_.write("nodes.json", kNodes);
    dir_.write("pods.json", pods());
  }
  RunResult status(std::vector<std::string> extra) {
    std::vector<std::string> args{"status", "--pods", "pods.json", "--now", kNow};
    args.insert(args.end(), extra.begin(), extra.end());
    return runCli(args, dir_.path());
  }
  ScratchDir dir_;
};

// Runs of spaces collapsed, so the checks do not depend on column widths.
std::string flat(const std::string& s) {
  std::string out;
  for (char c : s)
    if (c != ' ' || (!out.empty() && out.back() != ' ')) out.push_back(c);
  return out;
}

TEST_F(StatusTest, PoolQuotaAndClassTables) {
  const auto r = status({"--nodes", "nodes.json"});
  ASSERT_EQ(r.exitCode, 0) << r.err;
  const auto out = flat(r.out);
  // h2 is cordoned: 1 of 2 ready; h1 has 8 allocatable, 5 allocated, 3 free; 2 pending, oldest 42m.
  EXPECT_NE(out.find("train-h100 1/2 nvidia.com/gpu 8 5 3 2 42m\n"), std::string::npos) << r.out;
  EXPECT_NE(out.find("infer-a100 1/1 nvidia.com/gpu 0 0 0 0 -\n"), std::string::npos) << r.out;
  EXPECT_NE(out.find(" nvidia.com/mig-2g.20gb 3 1 2\n"), std::string::npos) << r.out;
  EXPECT_NE(out.find("GPU nodes in no pool: stray\n"), std::string::npos) << r.out;
  // Quotas count what pods hold or wait for: 3 + 2 bound, 8 pending in team-a.
  EXPECT_NE(out.find("team-a total 13.00 16.00 team-a 13.00\n"), std::string::npos) << r.out;
  EXPECT_NE(out.find("team-a class:training 13.00 12.00 team-a 13.00\n"), std::string::npos)
      << r.out;
  // Bound in the last hour: t1 (10m) and t2 (30m); s1 was bound at 07:00.
  EXPECT_NE(out.find("training 2 42m 2 10m 30m\n"), std::string::npos) << r.out;
  EXPECT_NE(out.find("inference 0 - 0 - -\n"), std::string::npos) << r.out;
}

TEST_F(StatusTest, JsonOutput) {
  const auto r = status({"--nodes", "nodes.json", "-o", "json"});
  ASSERT_EQ(r.exitCode, 0) << r.err;
  const auto doc = parseJson(r.out);
  ASSERT_TRUE(doc.IsObject()) << r.out;
  EXPECT_TRUE(doc["supplyAvailable"].GetBool());
  const auto& train = doc["pools"][0];
  EXPECT_STREQ(train["pool"].GetString(), "train-h100");
  EXPECT_EQ(train["nodesTotal"].GetInt(), 2);
  EXPECT_EQ(train["nodesReady"].GetInt(), 1);
  EXPECT_EQ(train["nodesCordoned"].GetInt(), 1);
  EXPECT_EQ(train["resources"][0]["free"].GetInt(), 3);
  EXPECT_EQ(train["pendingPods"].GetInt(), 2);
  EXPECT_DOUBLE_EQ(train["oldestWaitSeconds"].GetDouble(), 42 * 60);
  EXPECT_STREQ(doc["unpooledGpuNodes"][0].GetString(), "stray");
  EXPECT_DOUBLE_EQ(doc["quotas"][0]["usedGpuEquivalents"].GetDouble(), 13);
  const auto& training = doc["classes"][0];
  EXPECT_STREQ(training["class"].GetString(), "training");
  EXPECT_EQ(training["boundLastHour"].GetInt(), 2);
  EXPECT_DOUBLE_EQ(training["waitP50Seconds"].GetDouble(), 600);
  EXPECT_DOUBLE_EQ(training["waitP95Seconds"].GetDouble(), 1800);
  EXPECT_TRUE(doc["classes"][1]["waitP50Seconds"].IsNull());
}

TEST_F(StatusTest, WithoutNodesThereIsNoPoolTableButTheQueueShows) {
  const auto r = status({});
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_NE(r.out.find("pools: no node data (no node source"), std::string::npos) << r.out;
  EXPECT_NE(flat(r.out).find("training 2 42m 2 10m 30m\n"), std::string::npos) << r.out;
}

TEST_F(StatusTest, UsageErrors) {
  auto r = runCli({"status"}, dir_.path());
  EXPECT_EQ(r.exitCode, 2);
  EXPECT_NE(r.err.find("give --kubeconfig, --in-cluster, or snapshot files"), std::string::npos)
      << r.err;
  r = status({"--kubeconfig", "k"});
  EXPECT_EQ(r.exitCode, 2);
  r = runCli({"status", "--pods", "pods.json", "--now", "yesterday"}, dir_.path());
  EXPECT_EQ(r.exitCode, 2);
  EXPECT_NE(r.err.find("--now must be an RFC 3339 time"), std::string::npos) << r.err;
  r = status({"--nodes", "missing.json"});
  EXPECT_EQ(r.exitCode, 2);
  EXPECT_NE(r.err.find("missing.json"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace gpua::cli::test
