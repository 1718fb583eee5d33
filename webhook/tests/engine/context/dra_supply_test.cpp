#include "engine/context/dra_supply.hpp"

#include <gtest/gtest.h>

#include "engine/core/device_selectors.hpp"
#include "test_support.hpp"

namespace gpua::engine {
namespace {

using namespace testing;

const char* kGpuSelector =
    "device.driver == 'gpu.nvidia.com' && device.attributes['gpu.nvidia.com'].type == 'gpu'";
const char* kMigSelector =
    "device.driver == 'gpu.nvidia.com' && device.attributes['gpu.nvidia.com'].type == 'mig'";

void addDevice(DraObjects& dra, const std::string& node, const std::string& device,
               DeviceAttributes attrs) {
  const std::string key = deviceKey("gpu.nvidia.com", node, device);
  dra.deviceNodes[key] = node;
  dra.deviceAttributes[key] = std::move(attrs);
}

ResourceClaimInfo allocatedTo(const std::string& name, const std::string& node,
                              const std::string& device) {
  ResourceClaimInfo c;
  c.namespaceName = "ml";
  c.name = name;
  c.allocated = true;
  c.devices = {{"gpu", "gpu.nvidia.com", node, device}};
  return c;
}

TEST(DraSupply, SliceDevicesCountAsThePolicySaysAndMappedNamesAsAllocatable) {
  DraObjects dra;
  dra.deviceClasses["gpu.nvidia.com"] = {"gpu.nvidia.com", "nvidia.com/gpu", {kGpuSelector}};
  dra.deviceClasses["mig.nvidia.com"] = {"mig.nvidia.com", "", {kMigSelector}};
  addDevice(dra, "n1", "gpu-0", {{"gpu.nvidia.com/type", "gpu"}});
  addDevice(dra, "n1", "gpu-1", {{"gpu.nvidia.com/type", "gpu"}});
  addDevice(dra, "n1", "gpu-2", {{"gpu.nvidia.com/type", "gpu"}});
  addDevice(dra, "n1", "mig-0",
            {{"gpu.nvidia.com/type", "mig"}, {"gpu.nvidia.com/profile", "1g.10gb"}});
  addDevice(dra, "elsewhere", "gpu-9", {{"gpu.nvidia.com/type", "gpu"}});  // no such node
  dra.claims["ml/user"] = allocatedTo("user", "n1", "gpu-0");
  // The scheduler's claim for a pod's nvidia.com/gpu: the pod's request counts it already.
  dra.claims["ml/pod-extended"] = allocatedTo("pod-extended", "n1", "gpu-1");
  dra.extendedResourceClaims.insert("ml/pod-extended");
  std::vector<NodeSupply> nodes(1);
  nodes[0].name = "n1";
  addDraSupply(nodes, dra, draPolicy());
  EXPECT_EQ(nodes[0].draDevices.at("nvidia.com/gpu"), 3);
  EXPECT_EQ(nodes[0].draAllocated.at("nvidia.com/gpu"), 2);
  EXPECT_EQ(nodes[0].draDevices.at("nvidia.com/mig-1g.10gb"), 1);
  // KEP-5004: gpu.nvidia.com serves nvidia.com/gpu; the user's claim holds one device.
  EXPECT_EQ(nodes[0].allocatable.at("nvidia.com/gpu"), 3);
  EXPECT_EQ(nodes[0].allocated.at("nvidia.com/gpu"), 1);
}

TEST(DraSupply, TheMappingFollowsTheWatchedDeviceClass) {
  DraObjects dra;
  dra.deviceClasses["gpu.nvidia.com"] = {"gpu.nvidia.com", "", {kGpuSelector}};
  addDevice(dra, "n1", "gpu-0", {{"gpu.nvidia.com/type", "gpu"}});
  std::vector<NodeSupply> nodes(1);
  nodes[0].name = "n1";
  addDraSupply(nodes, dra, draPolicy());
  EXPECT_FALSE(nodes[0].allocatable.contains("nvidia.com/gpu"));  // no extendedResourceName
  EXPECT_EQ(nodes[0].draDevices.at("nvidia.com/gpu"), 1);
  // Renamed: the class maps another extended name, and the supply follows it.
  dra.deviceClasses["gpu.nvidia.com"].extendedResourceName = "example.com/gpu";
  std::vector<NodeSupply> renamed(1);
  renamed[0].name = "n1";
  addDraSupply(renamed, dra, draPolicy());
  EXPECT_EQ(renamed[0].allocatable.at("example.com/gpu"), 1);
  // A selector the reader cannot settle leaves the device out, unknown rather than guessed.
  dra.deviceClasses["gpu.nvidia.com"].selectors = {
      "device.attributes['gpu.nvidia.com'].type == 'gpu' || true"};
  std::vector<NodeSupply> unknown(1);
  unknown[0].name = "n1";
  addDraSupply(unknown, dra, draPolicy());
  EXPECT_TRUE(unknown[0].draDevices.empty());
  EXPECT_TRUE(unknown[0].allocatable.empty());
}

TEST(DraSupply, PoolsFoldDraDevicesBesideDevicePluginResources) {
  auto p = draPolicy();
  DraObjects dra;
  dra.deviceClasses["gpu.nvidia.com"] = {"gpu.nvidia.com", "", {kGpuSelector}};
  NodeInventory inv;
  inv.nodes.resize(1);
  NodeSupply& n = inv.nodes[0];
  n.name = "h1";
  n.ready = true;
  n.labels = {{"nvidia.com/gpu.product", "NVIDIA-H100-80GB-HBM3"},
              {"gpu-admission.io/pool", "train"}};
  n.taints = {{"nvidia.com/gpu", "", "NoSchedule"}};
  addDevice(dra, "h1", "gpu-0", {{"gpu.nvidia.com/type", "gpu"}});
  addDevice(dra, "h1", "gpu-1", {{"gpu.nvidia.com/type", "gpu"}});
  dra.claims["ml/c"] = allocatedTo("c", "h1", "gpu-0");
  addDraSupply(inv.nodes, dra, p);
  const SupplySnapshot s = summarizeSupply(std::move(inv), p);
  const PoolSupply* pool = s.pool("train-h100");
  ASSERT_NE(pool, nullptr);
  ASSERT_TRUE(pool->dra.contains("nvidia.com/gpu"));
  EXPECT_EQ(pool->dra.at("nvidia.com/gpu").devices, 2);
  EXPECT_EQ(pool->dra.at("nvidia.com/gpu").allocated, 1);
  EXPECT_EQ(pool->dra.at("nvidia.com/gpu").nodes, 1);
  EXPECT_FALSE(pool->resources.contains("nvidia.com/gpu"));  // no device plugin, no mapping
}

}  // namespace
}  // namespace gpua::engine
