#include "engine/classify/claim_usage.hpp"

#include <gtest/gtest.h>

#include "test_support.hpp"

namespace gpua::engine {
namespace {

using namespace testing;

ResourceClaimInfo claim(std::string ns, std::string name, int64_t count, bool allocated,
                        std::vector<std::string> reservedFor = {}) {
  DeviceAlternative a;
  a.name = "gpu";
  a.deviceClass = "gpu.nvidia.com";
  a.count = count;
  ResourceClaimInfo c{std::move(ns), std::move(name), {{"gpu", {a}}}, allocated, {}, {}};
  if (allocated)
    for (int64_t i = 0; i < count; ++i)
      c.devices.push_back({"gpu", "gpu.nvidia.com", "node-1", "gpu-" + std::to_string(i)});
  c.reservedFor = std::move(reservedFor);
  return c;
}

TEST(ClaimUsage, EachClaimCountsOnceInItsNamespaceAndItsPodsClass) {
  auto dra = std::make_shared<DraObjects>();
  dra->known = true;
  // Shared by three pods: still two GPUs.
  dra->claims["ml/shared"] = claim("ml", "shared", 2, true, {"u1", "u2", "u3"});
  dra->claims["ml/pending"] = claim("ml", "pending", 3, false);
  dra->podClasses["u2"] = "training";
  // The scheduler's claim for a pod's nvidia.com/gpu (KEP-5004): the pod counts it already.
  dra->claims["ml/pod-extended-resources-x"] = claim("ml", "pod-extended-resources-x", 1, true);
  dra->extendedResourceClaims.insert("ml/pod-extended-resources-x");
  UsageSnapshot usage = emptyUsage();
  usage.dra = dra;
  addClaimUsage(usage, draPolicy());
  const NamespaceUsage& ml = usage.namespaces.at("ml");
  EXPECT_DOUBLE_EQ(ml.gpuEquivalents, 5);
  EXPECT_EQ(ml.byResource.at("nvidia.com/gpu"), 5);
  EXPECT_DOUBLE_EQ(ml.byClass.at("training"), 2);
}

TEST(ClaimUsage, NothingWithoutSpecDraOrObjects) {
  UsageSnapshot usage = emptyUsage();
  addClaimUsage(usage, draPolicy());
  EXPECT_TRUE(usage.namespaces.empty());
  auto dra = std::make_shared<DraObjects>();
  dra->claims["ml/c"] = claim("ml", "c", 1, true);
  usage.dra = dra;
  addClaimUsage(usage, makePolicy());
  EXPECT_TRUE(usage.namespaces.empty());
}

}  // namespace
}  // namespace gpua::engine
