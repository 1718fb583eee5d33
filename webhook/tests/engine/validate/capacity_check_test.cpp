// no-capacity, gpu-stranding, the waiting hint and how capacityCheck meets the rollout mode.
#include <gtest/gtest.h>

#include "engine/context/supply.hpp"
#include "engine/pod/pod_demand.hpp"
#include "test_support.hpp"

namespace gpua::engine {
namespace {

using namespace testing;

NodeSupply migNode(const std::string& name, ResourceUnits allocatable) {
  NodeSupply n;
  n.name = name;
  n.labels = {{"nvidia.com/mig.strategy", "mixed"}, {"nvidia.com/mig.config.state", "success"}};
  n.ready = true;
  n.allocatable = std::move(allocatable);
  n.cpuMillis = 64000;
  n.memoryBytes = int64_t{512} << 30;
  return n;
}

NodeSupply h100(const std::string& name, int64_t allocated = 0) {
  NodeSupply n;
  n.name = name;
  n.labels = {{"nvidia.com/gpu.product", "NVIDIA-H100-80GB-HBM3"},
              {"gpu-admission.io/pool", "train"}};
  n.taints = {{"nvidia.com/gpu", "", "NoSchedule"}};
  n.ready = true;
  n.allocatable = {{"nvidia.com/gpu", 8}};
  n.allocated = {{"nvidia.com/gpu", allocated}};
  n.cpuMillis = 96000;
  n.memoryBytes = int64_t{1024} << 30;
  return n;
}

policy::PolicySet policyWith(policy::CapacityCheck check, policy::Mode mode) {
  auto p = makePolicy();
  p.capacityCheck = check;
  p.rollout = {{std::nullopt, mode}};
  return p;
}

const ResourceUnits kLayout = {
    {"nvidia.com/gpu", 0}, {"nvidia.com/mig-1g.10gb", 7}, {"nvidia.com/mig-3g.40gb", 2}};

Decision decideWith(const std::string& pod, const policy::PolicySet& p,
                    std::vector<NodeSupply> nodes, std::vector<PendingQueue> pending = {}) {
  const SupplySnapshot s = summarizeSupply({std::move(nodes), std::move(pending)}, p);
  rapidjson::Document doc = parse(pod);
  return decide(doc, podContext(), p, emptyUsage(), s);
}

const Violation* find(const Decision& d, std::string_view rule) {
  for (const auto& v : d.violations)
    if (v.rule == rule) return &v;
  return nullptr;
}

const std::string kInferPod = gpuPod(kInference, R"({"limits":{"nvidia.com/gpu":1}})");

TEST(CapacityCheck, WithDraTheDenialSaysNeitherSourceOffersIt) {
  auto p = policyWith(policy::CapacityCheck::Deny, policy::Mode::Enforce);
  p.dra.declared = true;
  const Decision d = decideWith(kInferPod, p, {migNode("a100-1", kLayout)});
  const Violation* v = find(d, "no-capacity");
  ASSERT_NE(v, nullptr);
  EXPECT_NE(v->message.find("none offers nvidia.com/mig-2g.20gb (no device plugin advertises it "
                            "and no DRA DeviceClass maps it): "),
            std::string::npos)
      << v->message;
}

TEST(CapacityCheck, NoNodeOffersTheRewrittenProfile) {
  const auto p = policyWith(policy::CapacityCheck::Deny, policy::Mode::Enforce);
  const Decision d = decideWith(kInferPod, p, {migNode("a100-1", kLayout)});
  ASSERT_FALSE(d.allowed());
  const Violation* v = find(d, "no-capacity");
  ASSERT_NE(v, nullptr);
  EXPECT_EQ(v->message,
            "pod \"trainer-0\" (class inference): pool infer-a100 offers nvidia.com/mig-1g.10gb "
            "(7 per node), nvidia.com/mig-3g.40gb (2); none offers nvidia.com/mig-2g.20gb: change "
            "the class's migProfile or the pool's MIG layout");
  // Once a node advertises the profile, the same pod is admitted without it.
  auto layout = kLayout;
  layout["nvidia.com/mig-2g.20gb"] = 3;
  const Decision ok =
      decideWith(kInferPod, p, {migNode("a100-1", kLayout), migNode("a100-2", layout)});
  EXPECT_TRUE(ok.allowed());
  EXPECT_EQ(find(ok, "no-capacity"), nullptr);
}

// The verdict is structural: what the pool's nodes are (their MIG layout, their GPUs per
// node), never their state now. A node that is NotReady, cordoned or tainted is still part of
// the pool's shape; the pod is admitted and waits for it, with a warning saying why.
TEST(CapacityCheck, NotReadyCordonedAndTaintedNodesAreStillThePoolsShape) {
  const auto p = policyWith(policy::CapacityCheck::Deny, policy::Mode::Enforce);
  auto layout = kLayout;
  layout["nvidia.com/mig-2g.20gb"] = 3;
  auto cordoned = migNode("a", layout);
  cordoned.unschedulable = true;
  auto down = migNode("b", layout);
  down.ready = false;
  auto tainted = migNode("c", layout);
  tainted.taints = {{"node.kubernetes.io/unreachable", "", "NoExecute"}};
  const Decision d = decideWith(kInferPod, p, {cordoned, down, tainted});
  EXPECT_TRUE(d.allowed()) << (d.denial ? d.denial->message : "");
  EXPECT_EQ(find(d, "no-capacity"), nullptr);
  ASSERT_FALSE(d.warnings.empty());
  EXPECT_EQ(d.warnings.back(),
            "admitted: pool infer-a100 has no Ready, schedulable node now (3 nodes: 1 not ready, 1 "
            "cordoned, 1 with a taint the pool does not tolerate); the pod will wait until one is; "
            "no other pods of class inference are waiting");
}

// Under capacityCheck: deny, a pool's transient states (NotReady, cordoned, 0 allocatable, no
// nodes) admit with a warning saying why: a denied pod never pends, so nothing scales up for it.
TEST(CapacityCheck, BothNodesNotReadyAdmitsAndSaysWhy) {
  const auto p = policyWith(policy::CapacityCheck::Deny, policy::Mode::Enforce);
  auto a = h100("h-1"), b = h100("h-2");
  a.ready = b.ready = false;
  const Decision d = decideWith(gpuPod(kTraining, R"({"limits":{"nvidia.com/gpu":8}})"), p, {a, b},
                                {{"training", "train-h100", 2, 90}});
  EXPECT_TRUE(d.allowed()) << (d.denial ? d.denial->message : "");
  EXPECT_TRUE(d.violations.empty());
  ASSERT_FALSE(d.warnings.empty());
  EXPECT_EQ(d.warnings.back(),
            "admitted: pool train-h100 has no Ready, schedulable node now (2 nodes: 2 not ready); "
            "the pod will wait until one is; 2 pods of class training are waiting, the oldest "
            "for 1m");
}

TEST(CapacityCheck, BothNodesCordonedAdmitsAndSaysWhy) {
  const auto p = policyWith(policy::CapacityCheck::Deny, policy::Mode::Enforce);
  auto a = h100("h-1"), b = h100("h-2");
  a.unschedulable = b.unschedulable = true;  // a driver upgrade drains the pool
  const Decision d = decideWith(gpuPod(kTraining, R"({"limits":{"nvidia.com/gpu":8}})"), p, {a, b});
  EXPECT_TRUE(d.allowed()) << (d.denial ? d.denial->message : "");
  EXPECT_TRUE(d.violations.empty());
  ASSERT_FALSE(d.warnings.empty());
  EXPECT_EQ(d.warnings.back(),
            "admitted: pool train-h100 has no Ready, schedulable node now (2 nodes: 2 cordoned); "
            "the pod will wait until one is; no other pods of class training are waiting");
}

TEST(CapacityCheck, ZeroAllocatableWhileADevicePluginRestartsAdmits) {
  const auto p = policyWith(policy::CapacityCheck::Deny, policy::Mode::Enforce);
  auto a = h100("h-1"), b = h100("h-2");
  a.allocatable["nvidia.com/gpu"] = b.allocatable["nvidia.com/gpu"] = 0;
  const std::string pod = gpuPod(kTraining, R"({"limits":{"nvidia.com/gpu":8}})");
  const Decision d = decideWith(pod, p, {a, b});
  EXPECT_TRUE(d.allowed()) << (d.denial ? d.denial->message : "");
  EXPECT_TRUE(d.violations.empty());
  ASSERT_FALSE(d.warnings.empty());
  EXPECT_EQ(d.warnings.back(),
            "admitted: no node of pool train-h100 advertises a GPU now (2 nodes: 2 Ready and "
            "schedulable; a device plugin starting or restarting?); the pod will wait until one "
            "advertises 8 nvidia.com/gpu; no other pods of class training are waiting");
  // A new node whose device plugin has not registered yet lists no GPU resource at all.
  auto fresh = h100("h-3");
  fresh.allocatable.clear();
  fresh.allocated.clear();
  EXPECT_TRUE(decideWith(pod, p, {fresh}).allowed());
  // The MIG pool: every profile at 0 at once.
  const ResourceUnits zeros = {
      {"nvidia.com/gpu", 0}, {"nvidia.com/mig-1g.10gb", 0}, {"nvidia.com/mig-3g.40gb", 0}};
  const Decision mig = decideWith(kInferPod, p, {migNode("a100-1", zeros)});
  EXPECT_TRUE(mig.allowed());
  EXPECT_EQ(find(mig, "no-capacity"), nullptr);
  // One node restarting, the other cordoned: the cordoned one shows the pool holds 8.
  b.allocatable["nvidia.com/gpu"] = 8;
  b.unschedulable = true;
  const Decision one = decideWith(pod, p, {a, b});
  EXPECT_TRUE(one.allowed());
  EXPECT_EQ(one.warnings.back(),
            "admitted: no Ready, schedulable node of pool train-h100 advertises 8 nvidia.com/gpu "
            "now (the most is 0; 2 nodes: 1 Ready and schedulable, 1 cordoned); the pod will "
            "wait until one does; no other pods of class training are waiting");
}

TEST(CapacityCheck, PoolScaledToZeroAdmitsSoAnAutoscalerSeesAPendingPod) {
  const auto p = policyWith(policy::CapacityCheck::Deny, policy::Mode::Enforce);
  const std::string pod = gpuPod(kTraining, R"({"limits":{"nvidia.com/gpu":8}})");
  // Nodes of other pools only: train-h100 has none.
  const Decision d = decideWith(pod, p, {migNode("a100-1", kLayout)});
  EXPECT_TRUE(d.allowed()) << (d.denial ? d.denial->message : "");
  EXPECT_TRUE(d.violations.empty());
  ASSERT_FALSE(d.warnings.empty());
  EXPECT_EQ(d.warnings.back(),
            "admitted: pool train-h100 has no nodes now; the pod will wait until one joins "
            "(autoscalers add nodes for pending pods; if the pool is not scaled to zero, check "
            "that its nodeSelector matches the nodes' labels); no other pods of class training "
            "are waiting");
  // No nodes at all, and a MIG pool at zero.
  EXPECT_TRUE(decideWith(pod, p, {}).allowed());
  EXPECT_TRUE(decideWith(kInferPod, p, {h100("h-1")}).allowed());
}

// Structural mismatches still deny, whatever the nodes' state.
TEST(CapacityCheck, StructuralMismatchDeniesWhateverTheNodesState) {
  auto p = policyWith(policy::CapacityCheck::Deny, policy::Mode::Enforce);
  p.classes[0].gpus.maxPerPod = 16;
  auto a = h100("h-1"), b = h100("h-2");
  a.ready = false;
  b.unschedulable = true;
  const Decision nine =
      decideWith(gpuPod(kTraining, R"({"limits":{"nvidia.com/gpu":9}})"), p, {a, b});
  EXPECT_FALSE(nine.allowed());
  const Violation* v = find(nine, "no-capacity");
  ASSERT_NE(v, nullptr);
  EXPECT_NE(v->message.find("needs 9 nvidia.com/gpu on one node, but the largest node of pool "
                            "train-h100 has 8"),
            std::string::npos)
      << v->message;
  // A MIG layout without the profile, on cordoned nodes: still denied, naming the layout.
  auto cordoned = migNode("a100-1", kLayout);
  cordoned.unschedulable = true;
  const Decision mig = decideWith(kInferPod, p, {cordoned});
  EXPECT_FALSE(mig.allowed());
  const Violation* m = find(mig, "no-capacity");
  ASSERT_NE(m, nullptr);
  EXPECT_NE(m->message.find("pool infer-a100 offers nvidia.com/mig-1g.10gb (7 per node), "
                            "nvidia.com/mig-3g.40gb (2); none offers nvidia.com/mig-2g.20gb"),
            std::string::npos)
      << m->message;
  // A node advertising nothing now might be the one that holds the pod: no verdict.
  auto silent = h100("h-3");
  silent.allocatable["nvidia.com/gpu"] = 0;
  const Decision unsure =
      decideWith(gpuPod(kTraining, R"({"limits":{"nvidia.com/gpu":9}})"), p, {h100("h-1"), silent});
  EXPECT_TRUE(unsure.allowed());
  EXPECT_TRUE(unsure.violations.empty());
  EXPECT_EQ(unsure.warnings.back(),
            "admitted: 1 of the 2 nodes of pool train-h100 advertises no GPU now (a device plugin "
            "starting or restarting?) and the others have at most 8 nvidia.com/gpu on one node; "
            "the pod will wait until one advertises 9 nvidia.com/gpu; no other pods of class "
            "training are waiting");
}

TEST(CapacityCheck, PerNodeDemandWithInitContainersAndSidecars) {
  // 2 in the app container and 1 in a native sidecar: 3 while running; the 3-GPU init
  // container runs beside the sidecar started before it, 4 at once.
  const std::string pod =
      R"({"kind":"Pod","metadata":{"name":"p","labels":{"gpu-admission.io/class":"training"}},)"
      R"("spec":{"containers":[{"name":"a","resources":{"limits":{"nvidia.com/gpu":2}}}],)"
      R"("initContainers":[{"name":"side","restartPolicy":"Always","resources":{"limits":{"nvidia.com/gpu":1}}},)"
      R"({"name":"warm","resources":{"limits":{"nvidia.com/gpu":3}}}]}})";
  rapidjson::Document doc = parse(pod);
  const PodView view = podViewOf(doc);
  const PodGpu gpu = analyzeGpu(view, makePolicy(), nullptr);
  EXPECT_EQ(perNodeGpuDemand(gpu, "").of("nvidia.com/gpu"), 4);
  EXPECT_EQ(perNodeGpuDemand(gpu, "nvidia.com/mig-2g.20gb").of("nvidia.com/mig-2g.20gb"), 4);
  const std::string cpuPod =
      R"({"kind":"Pod","metadata":{"name":"p"},"spec":{"overhead":{"cpu":"250m"},)"
      R"("containers":[{"name":"a","resources":{"requests":{"cpu":"1.5","memory":"1Gi"}}},)"
      R"({"name":"b","resources":{"limits":{"cpu":"500m","memory":"512Mi"}}}],)"
      R"("initContainers":[{"name":"i","resources":{"requests":{"cpu":"3","memory":"100Mi"}}}]}})";
  rapidjson::Document cdoc = parse(cpuPod);
  const PodView cview = podViewOf(cdoc);
  const auto cm = perNodeCpuMemory(cview, analyzeGpu(cview, makePolicy(), nullptr));
  EXPECT_EQ(cm.cpuMillis, 3250);  // the init container's 3 beats 1.5 + 0.5; plus overhead
  EXPECT_EQ(cm.memoryBytes, int64_t{1536} << 20);
}

TEST(CapacityCheck, Stranding) {
  auto p = policyWith(policy::CapacityCheck::Deny, policy::Mode::Enforce);
  p.pools[0].maxShareOfNodePerGpu = 1.5;
  const std::string greedy =
      gpuPod(kTraining, R"({"requests":{"cpu":"90"},"limits":{"nvidia.com/gpu":1}})");
  const Decision d = decideWith(greedy, p, {h100("h-1")});
  const Violation* v = find(d, "gpu-stranding");
  ASSERT_NE(v, nullptr);
  EXPECT_EQ(v->message,
            "pod \"trainer-0\" (class training) asks for 90 CPUs with 1 nvidia.com/gpu, but the "
            "roomiest node of pool train-h100 has 96 CPUs for 8 nvidia.com/gpu, so 7 of them "
            "would be left without CPU; maxShareOfNodePerGpu 1.5 allows at most 18 CPUs: lower "
            "the request to that, or ask for more GPUs");
  const std::string fair = gpuPod(
      kTraining, R"({"requests":{"cpu":"18","memory":"100Gi"},"limits":{"nvidia.com/gpu":1}})");
  EXPECT_EQ(find(decideWith(fair, p, {h100("h-1")}), "gpu-stranding"), nullptr);
  const std::string memoryHog =
      gpuPod(kTraining, R"({"requests":{"memory":"900Gi"},"limits":{"nvidia.com/gpu":2}})");
  const Decision hog = decideWith(memoryHog, p, {h100("h-1")});
  const Violation* m = find(hog, "gpu-stranding");
  ASSERT_NE(m, nullptr);
  EXPECT_NE(m->message.find("allows at most 384 GiB of memory"), std::string::npos) << m->message;
  // The class's factor wins over the pool's; without any factor nothing is checked.
  auto loose = p;
  loose.classes[0].maxShareOfNodePerGpu = 10;
  EXPECT_EQ(find(decideWith(greedy, loose, {h100("h-1")}), "gpu-stranding"), nullptr);
  EXPECT_EQ(find(decideWith(greedy, makePolicy(), {h100("h-1")}), "gpu-stranding"), nullptr);
  // The node shape is the pool's whatever the nodes' state: judged on a cordoned node too.
  auto cordoned = h100("h-1");
  cordoned.unschedulable = true;
  const Decision drained = decideWith(greedy, p, {cordoned});
  ASSERT_NE(find(drained, "gpu-stranding"), nullptr);
  EXPECT_EQ(find(drained, "gpu-stranding")->message, v->message);
  EXPECT_EQ(find(drained, "no-capacity"), nullptr);
  // With no nodes the shape is unknown: nothing to say.
  EXPECT_EQ(find(decideWith(greedy, p, {}), "gpu-stranding"), nullptr);
}

TEST(CapacityCheck, WaitingHintIsAWarningOnly) {
  const auto p = policyWith(policy::CapacityCheck::Deny, policy::Mode::Enforce);
  const Decision d =
      decideWith(gpuPod(kTraining, R"({"limits":{"nvidia.com/gpu":2}})"), p,
                 {h100("h-1", 8), h100("h-2", 7)}, {{"training", "train-h100", 9, 42 * 60 + 5}});
  ASSERT_TRUE(d.allowed());
  EXPECT_TRUE(d.violations.empty());
  ASSERT_FALSE(d.warnings.empty());
  EXPECT_EQ(d.warnings.back(),
            "pool train-h100: 1 of 16 nvidia.com/gpu free, at most 1 on one node (the pod needs "
            "2); 9 pods of class training are waiting, the oldest for 42m");
  const Decision full =
      decideWith(gpuPod(kTraining, R"({"limits":{"nvidia.com/gpu":1}})"), p, {h100("h-1", 8)});
  EXPECT_EQ(full.warnings.back(),
            "pool train-h100: 0 of 8 nvidia.com/gpu free; no other pods of class training are "
            "waiting");
}

TEST(CapacityCheck, WarnNeverDeniesAndOffTurnsItOff) {
  // capacityCheck warn (the default) in an enforce namespace: admitted with a warning.
  const auto warn = policyWith(policy::CapacityCheck::Warn, policy::Mode::Enforce);
  const Decision d = decideWith(kInferPod, warn, {migNode("a100-1", kLayout)});
  ASSERT_TRUE(d.allowed());
  ASSERT_NE(find(d, "no-capacity"), nullptr);
  EXPECT_FALSE(d.patch.empty());  // still mutated
  bool warned = false;
  for (const auto& w : d.warnings)
    warned = warned || w.starts_with("gpu-admission (capacity warning): pod \"trainer-0\"");
  EXPECT_TRUE(warned);
  // deny follows the rollout mode: a warn namespace warns.
  const auto denyInWarn = policyWith(policy::CapacityCheck::Deny, policy::Mode::Warn);
  EXPECT_TRUE(decideWith(kInferPod, denyInWarn, {migNode("a100-1", kLayout)}).allowed());
  // The class's own setting wins over the default.
  auto off = policyWith(policy::CapacityCheck::Deny, policy::Mode::Enforce);
  off.classes[1].capacityCheck = policy::CapacityCheck::Off;
  const Decision none = decideWith(kInferPod, off, {migNode("a100-1", kLayout)});
  EXPECT_TRUE(none.allowed());
  EXPECT_TRUE(none.violations.empty());
}

TEST(CapacityCheck, OffWithoutNodeDataOrForAnotherPolicy) {
  const auto p = policyWith(policy::CapacityCheck::Deny, policy::Mode::Enforce);
  rapidjson::Document doc = parse(kInferPod);
  EXPECT_TRUE(decide(doc, podContext(), p, emptyUsage(), noSupply()).allowed());
  auto other = p;
  other.revision = "other";
  const SupplySnapshot stale = summarizeSupply({{migNode("a100-1", kLayout)}, {}}, other);
  EXPECT_TRUE(decide(doc, podContext(), p, emptyUsage(), stale).allowed());
}

TEST(CapacityCheck, NodeNamePlacementWithNodeData) {
  const auto p = policyWith(policy::CapacityCheck::Off, policy::Mode::Enforce);
  auto cpu = h100("cpu-1");
  cpu.labels = {{"kubernetes.io/hostname", "cpu-1"}};
  const SupplySnapshot s = summarizeSupply({{cpu, h100("h-1")}, {}}, p);
  auto run = [&](const std::string& node) {
    rapidjson::Document doc = parse(
        gpuPod(kTraining, R"({"limits":{"nvidia.com/gpu":1}})", "\"nodeName\":\"" + node + "\""));
    return decide(doc, podContext(), p, emptyUsage(), s);
  };
  const Decision d = run("cpu-1");
  const Violation* v = find(d, "placement-conflict");
  ASSERT_NE(v, nullptr);
  EXPECT_NE(v->message.find("its spec.nodeName cpu-1 is a node outside the pools of class "
                            "training (pool train-h100 requires gpu-admission.io/pool In [train], "
                            "the node has no gpu-admission.io/pool label)"),
            std::string::npos)
      << v->message;
  EXPECT_EQ(find(run("h-1"), "placement-conflict"), nullptr);
  EXPECT_EQ(find(run("unknown-node"), "placement-conflict"), nullptr);
  // It read the node's labels: the compiled policies cannot make it, so offload mode keeps it.
  EXPECT_TRUE(v->readsOtherObjects);
  auto offloading = p;
  offloading.offloadedRules = {"placement-conflict"};
  rapidjson::Document doc =
      parse(gpuPod(kTraining, R"({"limits":{"nvidia.com/gpu":1}})", R"("nodeName":"cpu-1")"));
  EXPECT_NE(find(decide(doc, podContext(), offloading, emptyUsage(), s), "placement-conflict"),
            nullptr);
}

}  // namespace
}  // namespace gpua::engine
