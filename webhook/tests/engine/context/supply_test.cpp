// summarizeSupply: pool membership, node states, per-resource figures and node shape.
#include <gtest/gtest.h>

#include <optional>

#include "engine/context/supply.hpp"
#include "test_support.hpp"

namespace gpua::engine {
namespace {

using namespace testing;

NodeSupply h100(const std::string& name) {
  NodeSupply n;
  n.name = name;
  n.labels = {{"nvidia.com/gpu.product", "NVIDIA-H100-80GB-HBM3"},
              {"gpu-admission.io/pool", "train"},
              {"nvidia.com/gpu.count", "8"}};
  n.taints = {{"nvidia.com/gpu", "", "NoSchedule"}};
  n.ready = true;
  n.allocatable = {{"nvidia.com/gpu", 8}};
  n.cpuMillis = 96000;
  n.memoryBytes = int64_t{1024} * 1024 * 1024 * 1024;
  return n;
}

NodeSupply a100Mig(const std::string& name) {
  NodeSupply n;
  n.name = name;
  n.labels = {{"nvidia.com/mig.strategy", "mixed"}, {"nvidia.com/mig.config.state", "success"}};
  n.ready = true;
  n.allocatable = {
      {"nvidia.com/gpu", 0}, {"nvidia.com/mig-1g.10gb", 7}, {"nvidia.com/mig-3g.40gb", 2}};
  n.cpuMillis = 64000;
  return n;
}

TEST(Supply, MembershipStatesAndResources) {
  auto busy = h100("h100-1");
  busy.allocated = {{"nvidia.com/gpu", 6}};
  auto cordoned = h100("h100-2");
  cordoned.unschedulable = true;
  auto notReady = h100("h100-3");
  notReady.ready = false;
  auto untolerated = h100("h100-4");
  untolerated.taints.push_back({"maintenance", "true", "NoExecute"});
  auto preferNot = h100("h100-5");
  preferNot.taints.push_back({"maintenance", "true", "PreferNoSchedule"});
  NodeSupply cpu;
  cpu.name = "cpu-1";
  cpu.ready = true;
  cpu.cpuMillis = 32000;
  NodeSupply stray = a100Mig("stray");
  stray.labels.clear();  // a GPU node no pool selects
  const auto s = summarizeSupply(
      {{busy, cordoned, notReady, untolerated, preferNot, cpu, stray, a100Mig("a100-1")}, {}},
      makePolicy());
  ASSERT_TRUE(s.available);
  EXPECT_EQ(s.policyRevision, "r1a2b3");
  const PoolSupply* train = s.pool("train-h100");
  ASSERT_NE(train, nullptr);
  EXPECT_EQ(train->nodesTotal, 5);
  EXPECT_EQ(train->nodesReady, 4);
  EXPECT_EQ(train->nodesNotReady, 1);
  EXPECT_EQ(train->nodesCordoned, 1);
  EXPECT_EQ(train->nodesSchedulable, 2);  // busy and preferNot
  EXPECT_EQ(train->nodesTainted, 1);      // untolerated
  EXPECT_EQ(train->nodesSilent, 0);
  const ResourceSupply& gpu = train->resources.at("nvidia.com/gpu");
  EXPECT_EQ(gpu.allocatable, 16);
  EXPECT_EQ(gpu.allocated, 6);
  EXPECT_EQ(gpu.maxPerNode, 8);
  EXPECT_EQ(gpu.maxFreePerNode, 8);
  EXPECT_EQ(gpu.nodes, 2);
  EXPECT_EQ(gpu.largestPerNode, 8);
  EXPECT_DOUBLE_EQ(train->cpuMillisPerGpu, 12000);
  EXPECT_DOUBLE_EQ(gpu.cpu.perUnit, 12000);
  EXPECT_EQ(gpu.cpu.amount, 96000);
  EXPECT_EQ(gpu.cpu.units, 8);
  const PoolSupply* infer = s.pool("infer-a100");
  ASSERT_NE(infer, nullptr);
  EXPECT_EQ(infer->nodesSchedulable, 1);
  EXPECT_EQ(infer->resources.at("nvidia.com/mig-1g.10gb").maxPerNode, 7);
  EXPECT_EQ(infer->resources.at("nvidia.com/gpu").nodes, 0);  // kept at 0 after MIG
  EXPECT_EQ(s.unpooledGpuNodes, std::vector<std::string>{"stray"});
  ASSERT_NE(s.node("h100-2"), nullptr);
  EXPECT_EQ(s.node("nope"), nullptr);
}

// What the pool is made of counts every node whatever its state; what it offers now only the
// usable ones.
TEST(Supply, StructuralFiguresCountEveryNodeOfThePool) {
  auto cordoned = a100Mig("a100-1");
  cordoned.unschedulable = true;
  cordoned.allocatable["nvidia.com/mig-2g.20gb"] = 3;
  cordoned.memoryBytes = int64_t{512} << 30;
  auto restarting = a100Mig("a100-2");  // device plugin restarting: every profile at 0
  for (auto& [name, n] : restarting.allocatable) n = 0;
  auto down = a100Mig("a100-3");
  down.ready = false;
  const auto s = summarizeSupply({{cordoned, restarting, down}, {}}, makePolicy());
  const PoolSupply* infer = s.pool("infer-a100");
  ASSERT_NE(infer, nullptr);
  EXPECT_EQ(infer->nodesTotal, 3);
  EXPECT_EQ(infer->nodesSchedulable, 1);
  EXPECT_EQ(infer->nodesSilent, 1);
  const ResourceSupply& twoG = infer->resources.at("nvidia.com/mig-2g.20gb");
  EXPECT_EQ(twoG.largestPerNode, 3);  // on a cordoned node: still the pool's layout
  EXPECT_EQ(twoG.allocatable, 0);     // but nothing usable now
  EXPECT_EQ(twoG.maxPerNode, 0);
  EXPECT_EQ(twoG.nodes, 0);
  EXPECT_EQ(twoG.memory.amount, int64_t{512} << 30);
  EXPECT_EQ(twoG.memory.units, 3);
  const ResourceSupply& oneG = infer->resources.at("nvidia.com/mig-1g.10gb");
  EXPECT_EQ(oneG.largestPerNode, 7);
  EXPECT_EQ(oneG.allocatable, 0);  // the usable node advertises 0 now
  EXPECT_EQ(oneG.cpu.units, 7);
  // An empty pool: no nodes, no resources.
  const PoolSupply* train = s.pool("train-h100");
  ASSERT_NE(train, nullptr);
  EXPECT_EQ(train->nodesTotal, 0);
  EXPECT_TRUE(train->resources.empty());
}

TEST(Supply, ANodeInSeveralPoolsCountsInEach) {
  auto p = makePolicy();
  policy::Pool all = p.pools[0];
  all.name = "any-h100";
  all.nodeSelector = {{"nvidia.com/gpu.product", "NVIDIA-H100-80GB-HBM3"}};
  p.pools.push_back(all);
  const auto s = summarizeSupply({{h100("h100-1")}, {}}, p);
  EXPECT_EQ(s.pool("train-h100")->nodesSchedulable, 1);
  EXPECT_EQ(s.pool("any-h100")->nodesSchedulable, 1);
}

TEST(Supply, APoolWithoutSelectionHoldsTheNodesAdvertisingItsResource) {
  auto p = makePolicy();
  p.pools[2].nodeSelector.clear();  // dev-l4, nvidia.com/gpu.shared
  NodeSupply l4;
  l4.name = "l4-1";
  l4.ready = true;
  l4.taints = {{"nvidia.com/gpu", "", "NoSchedule"}};
  l4.allocatable = {{"nvidia.com/gpu.shared", 16}};
  l4.cpuMillis = 16000;
  const auto s = summarizeSupply({{l4, h100("h100-1")}, {}}, p);
  EXPECT_EQ(s.pool("dev-l4")->nodesTotal, 1);
  // 16 shared units of 4 replicas = 4 GPUs.
  EXPECT_DOUBLE_EQ(s.pool("dev-l4")->cpuMillisPerGpu, 4000);
}

// Pool membership reads an empty label value as the scheduler does: `In [""]` wants the label
// set to "", `NotIn [""]` alone also holds on nodes without the label, and with `Exists` beside
// it means "set and not empty".
TEST(Supply, EmptyLabelValuesSelectNodesAsTheSchedulerDoes) {
  auto node = [](const std::string& name, std::optional<std::string> role) {
    NodeSupply n = h100(name);
    n.labels.clear();
    if (role) n.labels.emplace("role", *role);
    return n;
  };
  const std::vector<NodeSupply> nodes{node("unlabelled", std::nullopt), node("empty", ""),
                                      node("worker", "worker")};
  using policy::NodeOperator;
  const auto members = [&](policy::NodeRequirements exprs) {
    auto p = makePolicy();
    p.pools[0].nodeSelector.clear();
    p.pools[0].matchExpressions = std::move(exprs);
    return summarizeSupply({nodes, {}}, p).pool("train-h100")->nodesTotal;
  };
  EXPECT_EQ(members({{"role", NodeOperator::In, {""}}}), 1);     // empty
  EXPECT_EQ(members({{"role", NodeOperator::NotIn, {""}}}), 2);  // unlabelled, worker
  EXPECT_EQ(members({{"role", NodeOperator::Exists, {}}, {"role", NodeOperator::NotIn, {""}}}),
            1);  // worker
}

}  // namespace
}  // namespace gpua::engine
