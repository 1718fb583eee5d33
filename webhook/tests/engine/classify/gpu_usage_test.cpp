#include "engine/classify/gpu_usage.hpp"

#include <gtest/gtest.h>

#include "engine/pod/quantity.hpp"
#include "test_support.hpp"

namespace gpua::engine {
namespace {

using namespace testing;

TEST(GpuEquivalents, PerResourceKind) {
  const auto p = makePolicy();
  EXPECT_DOUBLE_EQ(gpuEquivalentsOf("nvidia.com/gpu", 3, p), 3);
  EXPECT_DOUBLE_EQ(gpuEquivalentsOf("nvidia.com/mig-2g.20gb", 1, p), 2.0 / 7);
  EXPECT_DOUBLE_EQ(gpuEquivalentsOf("nvidia.com/mig-1g.5gb", 7, p), 1);  // not offered: 7 slices
  EXPECT_DOUBLE_EQ(gpuEquivalentsOf("nvidia.com/gpu.shared", 2, p), 0.5);
  EXPECT_DOUBLE_EQ(gpuEquivalentsOf("cpu", 4, p), 0);
  EXPECT_DOUBLE_EQ(gpuEquivalentsOf("nvidia.com/gpu", 0, p), 0);
}

TEST(GpuEquivalents, A30HasFourSlices) {
  auto p = makePolicy();
  p.pools[1].gpu = "A30";
  p.pools[1].migProfiles = {"1g.6gb", "2g.12gb"};
  EXPECT_DOUBLE_EQ(gpuEquivalentsOf("nvidia.com/mig-2g.12gb", 1, p), 0.5);
}

TEST(PodGpuUsage, MaxOfSumAndInitAndClassFromAnnotation) {
  const auto p = makePolicy();
  rapidjson::Document pod = parse(
      R"({"metadata":{"annotations":{"gpu-admission.io/class":"inference"}},"spec":{)"
      R"("initContainers":[{"name":"i","resources":{"limits":{"nvidia.com/gpu":3}}}],)"
      R"("containers":[{"name":"a","resources":{"limits":{"nvidia.com/gpu":1,"nvidia.com/mig-1g.10gb":2}}},)"
      R"({"name":"b","resources":{"requests":{"nvidia.com/gpu":"1"}}}]}})");
  const PodGpuUsage u = podGpuUsage(pod, p);
  EXPECT_EQ(u.units.at("nvidia.com/gpu"), 3);
  EXPECT_EQ(u.units.at("nvidia.com/mig-1g.10gb"), 2);
  EXPECT_DOUBLE_EQ(u.gpuEquivalents, 3 + 2.0 / 7);
  EXPECT_EQ(u.className, "inference");
  EXPECT_FALSE(u.hasResourceClaims);
}

TEST(PodGpuUsage, ClassFromMatchersAndClaims) {
  rapidjson::Document pod = parse(
      R"({"metadata":{"labels":{"notebook-name":"nb"}},"spec":{"resourceClaims":[{"name":"g"}],)"
      R"("containers":[{"name":"a"}]}})");
  const PodGpuUsage u = podGpuUsage(pod, makePolicy());
  EXPECT_EQ(u.className, "interactive");
  EXPECT_TRUE(u.hasResourceClaims);
  EXPECT_TRUE(u.units.empty());
  rapidjson::Document none = parse(R"({"spec":7})");
  EXPECT_EQ(podGpuUsage(none, makePolicy()).className, "");
}

}  // namespace
}  // namespace gpua::engine
