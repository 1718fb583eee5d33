#include "inventory/node_decode.hpp"

#include <gtest/gtest.h>

#include "support/cluster_fixtures.hpp"

namespace gpua::inventory {
namespace {

using testing::parse;

// A Node as `kubectl get nodes -o json` prints it (trimmed).
const char* kMigNode = R"({
  "apiVersion": "v1", "kind": "Node",
  "metadata": {"name": "a100-1", "labels": {"nvidia.com/mig.strategy": "mixed",
                                            "gpu-admission.io/pool": "infer-a100"}},
  "spec": {"taints": [{"key": "nvidia.com/gpu", "effect": "NoSchedule"},
                      {"key": "dedicated", "value": "ml", "effect": "NoExecute"}]},
  "status": {
    "allocatable": {"cpu": "95500m", "memory": "1056452600Ki", "pods": "110",
                    "ephemeral-storage": "1Ti", "hugepages-1Gi": "0",
                    "nvidia.com/gpu": "0", "nvidia.com/mig-1g.10gb": "7",
                    "nvidia.com/mig-3g.40gb": "2", "example.com/fpga": "1"},
    "conditions": [{"type": "MemoryPressure", "status": "False"},
                   {"type": "Ready", "status": "True"}]}})";

TEST(NodeDecode, ReadsLabelsTaintsReadinessAndGpuAllocatable) {
  const auto node = decodeNode(parse(kMigNode));
  ASSERT_TRUE(node);
  EXPECT_EQ(node->name, "a100-1");
  EXPECT_EQ(node->labels.at("nvidia.com/mig.strategy"), "mixed");
  ASSERT_EQ(node->taints.size(), 2u);
  EXPECT_EQ(node->taints[0].key, "nvidia.com/gpu");
  EXPECT_EQ(node->taints[0].value, "");
  EXPECT_EQ(node->taints[0].effect, "NoSchedule");
  EXPECT_EQ(node->taints[1].value, "ml");
  EXPECT_TRUE(node->ready);
  EXPECT_FALSE(node->unschedulable);
  // The kubelet keeps nvidia.com/gpu at 0 once MIG is on: kept, so "offers 0" is visible.
  const engine::ResourceUnits want{
      {"nvidia.com/gpu", 0}, {"nvidia.com/mig-1g.10gb", 7}, {"nvidia.com/mig-3g.40gb", 2}};
  EXPECT_EQ(node->allocatable, want);
  EXPECT_EQ(node->cpuMillis, 95500);
  EXPECT_EQ(node->memoryBytes, int64_t{1056452600} * 1024);
  EXPECT_TRUE(node->allocated.empty());
}

// 1.8e16 GPUs on one node was taken into the supply, and every capacity check then passed.
TEST(NodeDecode, AbsurdOrNegativeDeviceCountsAreNotCounted) {
  const auto with = [](std::string text, const std::string& from, const std::string& to) {
    return text.replace(text.find(from), from.size(), to);
  };
  std::string text = with(kMigNode, R"("nvidia.com/mig-1g.10gb": "7")",
                          R"("nvidia.com/mig-1g.10gb": "18000000000000000")");
  text = with(text, R"("nvidia.com/mig-3g.40gb": "2")", R"("nvidia.com/mig-3g.40gb": "-2")");
  const auto node = decodeNode(parse(text));
  ASSERT_TRUE(node);
  EXPECT_EQ(node->allocatable.count("nvidia.com/mig-1g.10gb"), 0u);
  EXPECT_EQ(node->allocatable.count("nvidia.com/mig-3g.40gb"), 0u);
  EXPECT_EQ(node->allocatable.at("nvidia.com/gpu"), 0);
  text = with(kMigNode, R"("nvidia.com/mig-1g.10gb": "7")", R"("nvidia.com/mig-1g.10gb": "65536")");
  EXPECT_EQ(decodeNode(parse(text))->allocatable.at("nvidia.com/mig-1g.10gb"), 65536);
}

TEST(NodeDecode, KeepsTheResourceNamesThePolicyUses) {
  NodeResourceFilter filter{{"example.com/fpga"}};
  const auto node = decodeNode(parse(kMigNode), filter);
  ASSERT_TRUE(node);
  EXPECT_EQ(node->allocatable.at("example.com/fpga"), 1);

  const auto policy = testing::loadPolicy(testing::policyYaml());
  const auto fromPolicy = nodeResourceFilter(*policy);
  EXPECT_TRUE(fromPolicy.keeps("nvidia.com/gpu.shared"));
  EXPECT_TRUE(fromPolicy.keeps("nvidia.com/mig-7g.80gb"));
  EXPECT_FALSE(fromPolicy.keeps("example.com/fpga"));
  EXPECT_FALSE(fromPolicy.keeps("pods"));
}

TEST(NodeDecode, CordonedNotReadyAndUnknownConditions) {
  auto node = decodeNode(parse(R"({"metadata":{"name":"n"},"spec":{"unschedulable":true},
      "status":{"conditions":[{"type":"Ready","status":"Unknown"}]}})"));
  ASSERT_TRUE(node);
  EXPECT_TRUE(node->unschedulable);
  EXPECT_FALSE(node->ready);
  node = decodeNode(parse(R"({"metadata":{"name":"n"},"status":{}})"));
  ASSERT_TRUE(node);
  EXPECT_FALSE(node->ready);  // no Ready condition at all: not ready
}

TEST(NodeDecode, StrangeObjectsNeverThrow) {
  EXPECT_FALSE(decodeNode(parse(R"([])")));
  EXPECT_FALSE(decodeNode(parse(R"({"metadata":{}})")));
  const auto node = decodeNode(parse(R"({"metadata":{"name":"n","labels":{"a":1,"b":"x"}},
      "spec":{"taints":[1,{"effect":"NoSchedule"},{"key":"k","value":3}],"unschedulable":"yes"},
      "status":{"allocatable":{"cpu":"lots","memory":-1,"nvidia.com/gpu":"1.5",
                               "nvidia.com/mig-1g.10gb":7},"conditions":{"Ready":true}}})"));
  ASSERT_TRUE(node);
  EXPECT_EQ(node->labels.size(), 1u);
  ASSERT_EQ(node->taints.size(), 1u);
  EXPECT_EQ(node->taints[0].key, "k");
  EXPECT_FALSE(node->unschedulable);
  EXPECT_EQ(node->cpuMillis, 0);
  EXPECT_EQ(node->memoryBytes, 0);
  EXPECT_EQ(node->allocatable, (engine::ResourceUnits{{"nvidia.com/mig-1g.10gb", 7}}));
}

TEST(Quantity, MillisOfTheKubernetesGrammar) {
  EXPECT_EQ(quantityMillis("2"), 2000);
  EXPECT_EQ(quantityMillis("+2"), 2000);
  EXPECT_EQ(quantityMillis("500m"), 500);
  EXPECT_EQ(quantityMillis("1.5"), 1500);
  EXPECT_EQ(quantityMillis(".5"), 500);
  EXPECT_EQ(quantityMillis("1k"), 1000 * 1000);
  EXPECT_EQ(quantityMillis("64Gi"), int64_t{64} * 1024 * 1024 * 1024 * 1000);
  EXPECT_EQ(quantityMillis("1e3"), 1000 * 1000);
  EXPECT_EQ(quantityMillis("1E3"), 1000 * 1000);
  EXPECT_EQ(quantityMillis("5e-1"), 500);
  EXPECT_EQ(quantityMillis("1E"), std::nullopt);  // exa in millis overflows int64
  EXPECT_EQ(quantityMillis("1P"), int64_t{1000000000000000} * 1000);
  EXPECT_EQ(quantityMillis("0.0001"), 1);  // rounded up, as the API server does
  EXPECT_EQ(quantityMillis("0"), 0);
  EXPECT_EQ(quantityMillis("8Ei"), std::nullopt);
  EXPECT_EQ(quantityMillis("99999999999999999999999"), std::nullopt);
  // As apimachinery: a suffix with no digits is zero (the engine's reference table has "k").
  EXPECT_EQ(quantityMillis("m"), 0);
  for (const char* bad : {"", "-1", "1x", "1.2.3", "1e", "1e+", "1Kb", "0x10", "1 "})
    EXPECT_EQ(quantityMillis(bad), std::nullopt) << bad;
}

TEST(NodesFile, ReadsNodeListsArraysAndSingleNodes) {
  testing::TempDir dir;
  const std::string list = std::string(R"({"apiVersion":"v1","kind":"List","items":[)") + kMigNode +
                           R"(,{"kind":"Pod","metadata":{"name":"p"}}]})";
  auto nodes = loadNodesFile(dir.write("list.json", list));
  ASSERT_EQ(nodes.size(), 1u);  // the Pod in a mixed List is not a node
  EXPECT_EQ(nodes[0].name, "a100-1");
  nodes = loadNodesFile(
      dir.write("typed.json", R"({"kind":"NodeList","items":[{"metadata":{"name":"x"}}]})"));
  ASSERT_EQ(nodes.size(), 1u);
  EXPECT_EQ(nodes[0].name, "x");
  nodes = loadNodesFile(dir.write("one.json", kMigNode));
  ASSERT_EQ(nodes.size(), 1u);
  nodes = loadNodesFile(dir.write("bare.json", R"([{"metadata":{"name":"y"}}])"));
  ASSERT_EQ(nodes.size(), 1u);
  nodes = loadNodesFile(
      dir.write("pods.json", R"({"kind":"PodList","items":[{"metadata":{"name":"p"}}]})"));
  EXPECT_TRUE(nodes.empty());
}

TEST(NodesFile, ErrorsNameTheFile) {
  testing::TempDir dir;
  const auto bad = dir.write("bad.json", "{\"items\": [");
  try {
    loadNodesFile(bad);
    FAIL() << "no error";
  } catch (const NodesFileError& e) {
    EXPECT_NE(std::string(e.what()).find(bad + ": invalid JSON at byte offset"), std::string::npos)
        << e.what();
  }
  EXPECT_THROW(loadNodesFile(dir.file("missing.json")), NodesFileError);
  EXPECT_THROW(loadNodesFile(dir.write("num.json", "3")), NodesFileError);
}

}  // namespace
}  // namespace gpua::inventory
