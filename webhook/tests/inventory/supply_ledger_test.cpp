#include "inventory/supply_ledger.hpp"

#include <gtest/gtest.h>

#include "support/cluster_fixtures.hpp"

namespace gpua::inventory {
namespace {

using testing::loadPolicy;
using testing::parse;
using testing::policyYaml;

constexpr double kNow = 1796114400;  // 2026-12-01T08:40:00Z

struct Pod {
  std::string name;
  std::string cls;
  std::string resource = "nvidia.com/gpu";
  int units = 1;
  std::string node;  // spec.nodeName; empty = pending
  std::string phase = "Running";
  std::string created = "2026-12-01T08:00:00Z";
  std::string scheduledAt;  // PodScheduled=True lastTransitionTime
  std::string reason;       // status.reason
  std::string extraSpec;    // e.g. ,"nodeSelector":{...}
};

std::string podJson(const Pod& p) {
  std::string conditions = "[]";
  if (!p.scheduledAt.empty())
    conditions = R"([{"type":"PodScheduled","status":"True","lastTransitionTime":")" +
                 p.scheduledAt + R"("}])";
  return R"({"metadata":{"name":")" + p.name + R"(","namespace":"ml","uid":"uid-)" + p.name +
         R"(","creationTimestamp":")" + p.created + R"(","labels":{"gpu-admission.io/class":")" +
         p.cls + R"("}},"spec":{)" + (p.node.empty() ? "" : R"("nodeName":")" + p.node + "\",") +
         R"("containers":[{"name":"c","resources":{"limits":{")" + p.resource + R"(":")" +
         std::to_string(p.units) + R"("}}}])" + p.extraSpec + R"(},"status":{"phase":")" + p.phase +
         R"(")" + (p.reason.empty() ? "" : R"(,"reason":")" + p.reason + "\"") +
         R"(,"conditions":)" + conditions + "}}";
}

std::string nodeJson(const std::string& name, const std::string& allocatable, bool ready = true,
                     bool cordoned = false) {
  return R"({"metadata":{"name":")" + name + R"("},"spec":{"unschedulable":)" +
         (cordoned ? "true" : "false") + R"(},"status":{"allocatable":{)" + allocatable +
         R"(},"conditions":[{"type":"Ready","status":")" + (ready ? "True" : "False") + R"("}]}})";
}

std::string list(const std::vector<std::string>& items) {
  std::string out = "[";
  for (const auto& i : items) out += (out.size() > 1 ? "," : "") + i;
  return out + "]";
}

class SupplyLedgerTest : public ::testing::Test {
 protected:
  std::shared_ptr<const policy::PolicySet> policy = loadPolicy(policyYaml());
  SupplyLedger ledger{policy};

  void nodes(const std::vector<std::string>& items) {
    ledger.beginNodeList();
    ledger.addNodePage(parse(list(items)));
    ledger.commitNodeList();
  }
  void pods(const std::vector<Pod>& items) {
    std::vector<std::string> json;
    for (const auto& p : items) json.push_back(podJson(p));
    ledger.beginPodList();
    ledger.addPodPage(parse(list(json)));
    ledger.commitPodList();
  }
  void event(EventType t, const Pod& p) { ledger.applyPodEvent(t, parse(podJson(p))); }
  engine::ResourceUnits allocatedOn(const std::string& node) {
    for (const auto& n : ledger.nodes())
      if (n.name == node) return n.allocated;
    ADD_FAILURE() << "no node " << node;
    return {};
  }
};

TEST_F(SupplyLedgerTest, AllocatedIsTheRequestsOfNonTerminalPodsBoundToEachNode) {
  nodes({nodeJson("h1", R"("nvidia.com/gpu":"8")"),
         nodeJson("a1", R"("nvidia.com/mig-1g.10gb":"7")")});
  pods({{.name = "t1", .cls = "training", .units = 3, .node = "h1"},
        {.name = "t2", .cls = "training", .units = 2, .node = "h1"},
        {.name = "done", .cls = "training", .units = 4, .node = "h1", .phase = "Succeeded"},
        {.name = "i1", .cls = "inference", .resource = "nvidia.com/mig-1g.10gb", .node = "a1"},
        {.name = "elsewhere", .cls = "training", .node = "unknown-node"}});
  EXPECT_EQ(allocatedOn("h1"), (engine::ResourceUnits{{"nvidia.com/gpu", 5}}));
  EXPECT_EQ(allocatedOn("a1"), (engine::ResourceUnits{{"nvidia.com/mig-1g.10gb", 1}}));
  EXPECT_EQ(ledger.boundPodCount(), 4u);

  event(EventType::Modified,
        {.name = "t1", .cls = "training", .units = 3, .node = "h1", .phase = "Succeeded"});
  EXPECT_EQ(allocatedOn("h1"), (engine::ResourceUnits{{"nvidia.com/gpu", 2}}));
  event(EventType::Deleted, {.name = "t2", .cls = "training", .node = "h1"});
  EXPECT_TRUE(allocatedOn("h1").empty());
}

// Found by fuzz_watch: a key listed twice, first pending then bound, was both pending and bound
// after the list, where the same items as events leave it bound only.
TEST_F(SupplyLedgerTest, AKeyListedTwiceCountsAsItsLastItem) {
  nodes({nodeJson("h1", R"("nvidia.com/gpu":"8")")});
  pods({{.name = "t1", .cls = "training", .units = 3},
        {.name = "t1", .cls = "training", .units = 3, .node = "h1"},
        {.name = "t2", .cls = "training", .units = 2, .node = "h1"},
        {.name = "t2", .cls = "training", .units = 2, .node = "h1", .phase = "Succeeded"}});
  EXPECT_EQ(ledger.pendingPodCount(), 0u);
  EXPECT_EQ(ledger.boundPodCount(), 1u);
  EXPECT_EQ(allocatedOn("h1"), (engine::ResourceUnits{{"nvidia.com/gpu", 3}}));
}

TEST_F(SupplyLedgerTest, NodeEventsReplaceAndRemoveNodesAndKeepTheirPods) {
  nodes({nodeJson("h1", R"("nvidia.com/gpu":"8")")});
  pods({{.name = "t1", .cls = "training", .units = 3, .node = "h1"}});
  ledger.applyNodeEvent(EventType::Modified,
                        parse(nodeJson("h1", R"("nvidia.com/gpu":"8")", false, true)));
  auto n = ledger.nodes();
  ASSERT_EQ(n.size(), 1u);
  EXPECT_FALSE(n[0].ready);
  EXPECT_TRUE(n[0].unschedulable);
  EXPECT_EQ(n[0].allocated.at("nvidia.com/gpu"), 3);  // the pod is still there
  ledger.applyNodeEvent(EventType::Added, parse(nodeJson("h2", R"("nvidia.com/gpu":"4")")));
  EXPECT_EQ(ledger.nodeCount(), 2u);
  ledger.applyNodeEvent(EventType::Deleted, parse(nodeJson("h1", "")));
  n = ledger.nodes();
  ASSERT_EQ(n.size(), 1u);
  EXPECT_EQ(n[0].name, "h2");
}

TEST_F(SupplyLedgerTest, PendingGpuPodsByClassAndPoolWithTheOldestWait) {
  pods({{.name = "i1", .cls = "inference", .created = "2026-12-01T08:00:00Z"},
        {.name = "i2", .cls = "inference", .created = "2026-12-01T07:58:00Z"},
        {.name = "t1", .cls = "training", .created = "2026-12-01T08:39:00Z"},
        {.name = "u1", .cls = "", .created = "2026-12-01T08:30:00Z"},
        {.name = "gone", .cls = "training", .phase = "Failed"},
        {.name = "bound", .cls = "training", .node = "h1"}});
  const auto q = ledger.pending(kNow);
  ASSERT_EQ(q.size(), 3u);
  EXPECT_EQ(q[0].className, "");
  EXPECT_EQ(q[0].pool, "");
  EXPECT_EQ(q[1].className, "inference");
  EXPECT_EQ(q[1].pool, "infer-a100");
  EXPECT_EQ(q[1].pods, 2);
  EXPECT_DOUBLE_EQ(q[1].oldestWaitSeconds, 42 * 60);
  EXPECT_EQ(q[2].className, "training");
  EXPECT_EQ(q[2].pool, "train-h100");
  EXPECT_DOUBLE_EQ(q[2].oldestWaitSeconds, 60);

  event(EventType::Modified, {.name = "i2", .cls = "inference", .node = "a1"});
  EXPECT_EQ(ledger.pending(kNow)[1].pods, 1);
  EXPECT_DOUBLE_EQ(ledger.pending(kNow)[1].oldestWaitSeconds, 40 * 60);
}

TEST_F(SupplyLedgerTest, ClassWithSeveralPoolsQueuesUnderThePoolThePodIsPinnedTo) {
  // A second time-sliced pool for the interactive class.
  auto yaml = policyYaml();
  yaml.replace(yaml.find("    pools: [dev-l4]"), 19, "    pools: [dev-l4, dev-t4]");
  yaml.replace(yaml.find("  classes:"), 10, R"(  - name: dev-t4
    gpu: T4
    sharing: time-slicing
    replicas: 4
    resource: nvidia.com/gpu.shared
    nodeSelector: {gpu-admission.io/pool: dev-t4}
  classes:)");
  SupplyLedger l{loadPolicy(yaml)};
  l.beginPodList();
  l.addPodPage(parse(list(
      {podJson({.name = "a",
                .cls = "interactive",
                .extraSpec = R"(,"nodeSelector":{"gpu-admission.io/pool":"dev-t4"})"}),
       podJson(
           {.name = "b",
            .cls = "interactive",
            .extraSpec =
                R"(,"affinity":{"nodeAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":{"nodeSelectorTerms":[{"matchExpressions":[{"key":"gpu-admission.io/pool","operator":"In","values":["dev-l4"]}]}]}}})"}),
       podJson({.name = "c", .cls = "interactive"})})));
  l.commitPodList();
  const auto q = l.pending(kNow);
  ASSERT_EQ(q.size(), 3u);
  EXPECT_EQ(q[0].pool, "");
  EXPECT_EQ(q[1].pool, "dev-l4");
  EXPECT_EQ(q[2].pool, "dev-t4");
}

TEST_F(SupplyLedgerTest, ScheduleWaitIsObservedOncePerPod) {
  const Pod bound{.name = "i1",
                  .cls = "inference",
                  .node = "a1",
                  .created = "2026-12-01T08:00:00Z",
                  .scheduledAt = "2026-12-01T08:20:00Z"};
  event(EventType::Added, {.name = "i1", .cls = "inference"});
  EXPECT_TRUE(ledger.takeScheduleWaits().empty());
  event(EventType::Modified, bound);
  auto waits = ledger.takeScheduleWaits();
  ASSERT_EQ(waits.size(), 1u);
  EXPECT_EQ(waits[0].className, "inference");
  EXPECT_DOUBLE_EQ(waits[0].seconds, 20 * 60);
  event(EventType::Modified, bound);
  pods({bound});  // a relist sees it again
  EXPECT_TRUE(ledger.takeScheduleWaits().empty());
  // CPU pods are not the GPU queue.
  event(EventType::Added,
        {.name = "cpu", .resource = "cpu", .scheduledAt = "2026-12-01T08:20:00Z"});
  EXPECT_TRUE(ledger.takeScheduleWaits().empty());
}

TEST_F(SupplyLedgerTest, StartFailuresCountDeviceReasonsOncePerPod) {
  const Pod failed{.name = "f1",
                   .cls = "training",
                   .node = "h1",
                   .phase = "Failed",
                   .reason = "UnexpectedAdmissionError"};
  event(EventType::Modified, failed);
  event(EventType::Modified, failed);
  event(EventType::Added, {.name = "f2",
                           .cls = "training",
                           .node = "h1",
                           .phase = "Failed",
                           .reason = "OutOfnvidia.com/gpu"});
  event(EventType::Added, {.name = "f3",
                           .cls = "",
                           .node = "h1",
                           .phase = "Failed",
                           .reason = "OutOfsomething.io/weird"});
  event(EventType::Added,
        {.name = "f4", .cls = "training", .node = "h1", .phase = "Failed", .reason = "Evicted"});
  const auto f = ledger.takeStartFailures();
  ASSERT_EQ(f.size(), 3u);
  EXPECT_EQ(f[0].reason, "UnexpectedAdmissionError");
  EXPECT_EQ(f[0].className, "training");
  EXPECT_EQ(f[1].reason, "OutOfnvidia.com/gpu");
  EXPECT_EQ(f[2].reason, "OutOfOther");
  EXPECT_EQ(f[2].className, "");
  EXPECT_EQ(ledger.boundPodCount(), 0u);  // failed pods hold nothing
}

TEST_F(SupplyLedgerTest, FromListsBuildsBothStagesForTheCli) {
  const auto podList = parse(R"({"kind":"List","items":[)" +
                             podJson({.name = "t1", .cls = "training", .units = 2, .node = "h1"}) +
                             "," + podJson({.name = "t2", .cls = "training"}) +
                             R"(,{"kind":"Namespace","metadata":{"name":"ml"}}]})");
  const auto nodeList = parse(list({nodeJson("h1", R"("nvidia.com/gpu":"8","cpu":"96")")}));
  const auto s = supplyFromLists(nodesFromList(nodeList), podList, *policy, kNow);
  ASSERT_EQ(s.nodes.size(), 1u);
  EXPECT_EQ(s.nodes[0].cpuMillis, 96000);
  EXPECT_EQ(s.nodes[0].allocated.at("nvidia.com/gpu"), 2);
  ASSERT_EQ(s.pending.size(), 1u);
  EXPECT_EQ(s.pending[0].pods, 1);
  EXPECT_DOUBLE_EQ(s.pending[0].oldestWaitSeconds, 40 * 60);
}

TEST_F(SupplyLedgerTest, PolicyChangeReportsWhenNodeResourcesChange) {
  EXPECT_FALSE(ledger.setPolicy(policy));
  auto yaml = policyYaml();
  yaml.replace(yaml.find("resource: nvidia.com/gpu.shared"), 31, "resource: example.com/vgpu");
  EXPECT_TRUE(ledger.setPolicy(loadPolicy(yaml)));
  EXPECT_TRUE(ledger.filter().keeps("example.com/vgpu"));
}

}  // namespace
}  // namespace gpua::inventory
