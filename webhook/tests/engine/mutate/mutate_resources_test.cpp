// GPU resource rewrite: nvidia.com/gpu -> the class's resource, limits defaulted from requests.
#include <gtest/gtest.h>

#include "test_support.hpp"

namespace gpua::engine {
namespace {

using namespace testing;

TEST(MutateResources, RewritesRequestsAndLimitsToMigProfile) {
  const Applied run = decideAndApply(
      gpuPod(kInference,
             R"({"requests":{"cpu":"1","nvidia.com/gpu":"1"},"limits":{"nvidia.com/gpu":"1"}})"),
      makePolicy());
  ASSERT_TRUE(run.decision.allowed());
  EXPECT_EQ(
      at(run.patched, "/spec/containers/0/resources"),
      R"({"requests":{"cpu":"1","nvidia.com/mig-2g.20gb":"1"},"limits":{"nvidia.com/mig-2g.20gb":"1"}})");
  // Paths escape '/' as ~1.
  bool sawEscaped = false;
  for (const auto& op : run.decision.patch)
    sawEscaped = sawEscaped || op.path == "/spec/containers/0/resources/limits/nvidia.com~1gpu";
  EXPECT_TRUE(sawEscaped);
  EXPECT_EQ(run.decision.changes[0], "nvidia.com/gpu -> nvidia.com/mig-2g.20gb");
  EXPECT_DOUBLE_EQ(run.decision.gpuEquivalents, 2.0 / 7);
}

TEST(MutateResources, RewritesInitContainersToo) {
  const std::string pod =
      R"({"metadata":{"name":"p","labels":{"gpu-admission.io/class":"interactive"}},"spec":{)"
      R"("initContainers":[{"name":"warm","resources":{"limits":{"nvidia.com/gpu":1}}}],)"
      R"("containers":[{"name":"main","resources":{"limits":{"nvidia.com/gpu":1}}}]}})";
  const Applied run = decideAndApply(pod, makePolicy());
  EXPECT_EQ(at(run.patched, "/spec/initContainers/0/resources/limits"),
            R"({"nvidia.com/gpu.shared":1})");
  EXPECT_EQ(at(run.patched, "/spec/containers/0/resources/limits"),
            R"({"nvidia.com/gpu.shared":1})");
  EXPECT_DOUBLE_EQ(run.decision.gpuEquivalents, 0.25);
}

TEST(MutateResources, RequestsOnlyGetsLimitsCreatedWhole) {
  const Applied run = decideAndApply(
      gpuPod(R"({"gpu-admission.io/class":"training"})", R"({"requests":{"nvidia.com/gpu":"2"}})"),
      makePolicy());
  ASSERT_TRUE(run.decision.allowed());
  EXPECT_EQ(at(run.patched, "/spec/containers/0/resources/limits"), R"({"nvidia.com/gpu":"2"})");
  EXPECT_EQ(at(run.patched, "/spec/containers/0/resources/requests"), R"({"nvidia.com/gpu":"2"})");
  EXPECT_DOUBLE_EQ(run.decision.gpuEquivalents, 2);
}

TEST(MutateResources, RequestsOnlyWithExistingLimitsAndRewrite) {
  const Applied run = decideAndApply(
      gpuPod(kInference, R"({"requests":{"nvidia.com/gpu":1},"limits":{"memory":"1Gi"}})"),
      makePolicy());
  EXPECT_EQ(
      at(run.patched, "/spec/containers/0/resources"),
      R"({"requests":{"nvidia.com/mig-2g.20gb":1},"limits":{"memory":"1Gi","nvidia.com/mig-2g.20gb":1}})");
}

TEST(MutateResources, ExplicitMigRequestIsNotRewritten) {
  const Applied run = decideAndApply(
      gpuPod(kInference, R"({"limits":{"nvidia.com/mig-1g.10gb":1}})"), makePolicy());
  ASSERT_TRUE(run.decision.allowed());
  EXPECT_EQ(at(run.patched, "/spec/containers/0/resources/limits"),
            R"({"nvidia.com/mig-1g.10gb":1})");
  EXPECT_DOUBLE_EQ(run.decision.gpuEquivalents, 1.0 / 7);
}

TEST(MutateResources, OtherExtendedResourcesStay) {
  const Applied run = decideAndApply(
      gpuPod(
          kInference,
          R"({"limits":{"nvidia.com/gpu":1,"nvidia.com/gpucores":30,"rdma/rdma_shared_device_a":1}})"),
      makePolicy());
  EXPECT_EQ(
      at(run.patched, "/spec/containers/0/resources/limits"),
      R"({"nvidia.com/gpucores":30,"rdma/rdma_shared_device_a":1,"nvidia.com/mig-2g.20gb":1})");
}

TEST(MutateResources, WholeGpuClassLeavesResourcesAlone) {
  const Applied run = decideAndApply(
      gpuPod(R"({"gpu-admission.io/class":"training"})", R"({"limits":{"nvidia.com/gpu":1}})"),
      makePolicy());
  for (const auto& op : run.decision.patch)
    EXPECT_EQ(op.path.find("/resources"), std::string::npos) << op.path;
}

}  // namespace
}  // namespace gpua::engine
