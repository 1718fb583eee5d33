// gpu-pool-without-request: which placements target a GPU pool (operators, Exists, CPU pools,
// nodeName on a GPU node).
#include <gtest/gtest.h>

#include "test_support.hpp"

namespace gpua::engine {
namespace {

using namespace testing;

TEST(PoolTargeting, NodeSelectorSatisfyingAGtRequirementTargetsThePool) {
  const auto d = decidePod(gpuPod("{}", "{}", R"("nodeSelector":{"nvidia.com/gpu.count":"8"})"),
                           withCountPool());
  ASSERT_FALSE(d.allowed());
  EXPECT_EQ(d.violations[0].rule, "gpu-pool-without-request");
  EXPECT_NE(
      d.denial->message.find("targets GPU pool train-h100 (nodeSelector nvidia.com/gpu.count=8)"),
      std::string::npos);
  // 2 GPUs do not satisfy Gt 4, and a DoesNotExist key is also true of CPU nodes.
  EXPECT_TRUE(decidePod(gpuPod("{}", "{}", R"("nodeSelector":{"nvidia.com/gpu.count":"2"})"),
                        withCountPool())
                  .allowed());
}

TEST(PoolTargeting, AffinityExistsOnAPoolKeyTargetsThePool) {
  const std::string affinity =
      R"("affinity":{"nodeAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":{"nodeSelectorTerms":[)"
      R"({"matchExpressions":[{"key":"nvidia.com/gpu.count","operator":"Exists"}]}]}}})";
  const auto d = decidePod(gpuPod("{}", "{}", affinity), withCountPool());
  ASSERT_FALSE(d.allowed());
  EXPECT_NE(d.denial->message.find("(node affinity nvidia.com/gpu.count Exists)"),
            std::string::npos);
}

TEST(PoolTargeting, CpuPoolsAreNotGpuPools) {
  auto p = makePolicy();
  policy::Pool cpu;
  cpu.name = "cpu-general";
  cpu.cpuOnly = true;
  cpu.nodeSelector = {{"node-role.example.com/cpu", "true"}};
  p.cpuPools = {cpu};
  EXPECT_TRUE(
      decidePod(gpuPod("{}", "{}", R"("nodeSelector":{"node-role.example.com/cpu":"true"})"), p)
          .allowed());
}

TEST(PoolTargeting, NodeNameOnAGpuNodeNeedsNodeData) {
  const auto p = makePolicy();
  NodeSupply gpuNode;
  gpuNode.name = "h100-7";
  gpuNode.ready = true;
  gpuNode.labels = {{"nvidia.com/gpu.product", "NVIDIA-H100-80GB-HBM3"},
                    {"gpu-admission.io/pool", "train"}};
  NodeSupply cpuNode;
  cpuNode.name = "cpu-3";
  cpuNode.ready = true;
  const SupplySnapshot supply = summarizeSupply({{gpuNode, cpuNode}, {}}, p);
  auto runOn = [&](const std::string& node, const SupplySnapshot& s) {
    rapidjson::Document doc = parse(gpuPod("{}", "{}", "\"nodeName\":\"" + node + "\""));
    return decide(doc, podContext(), p, emptyUsage(), s);
  };
  const auto d = runOn("h100-7", supply);
  ASSERT_FALSE(d.allowed());
  EXPECT_EQ(d.violations[0].rule, "gpu-pool-without-request");
  EXPECT_NE(d.denial->message.find("targets GPU pool train-h100 (spec.nodeName h100-7)"),
            std::string::npos)
      << d.denial->message;
  EXPECT_TRUE(runOn("cpu-3", supply).allowed());
  // Without node data the node's pool is unknown: not a finding.
  EXPECT_TRUE(runOn("h100-7", noSupply()).allowed());
}

}  // namespace
}  // namespace gpua::engine
