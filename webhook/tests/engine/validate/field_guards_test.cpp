// Field guards every judged pod gets: NVIDIA_VISIBLE_DEVICES / CUDA_VISIBLE_DEVICES in containers
// without a GPU, valueFrom, and turning each guard off.
#include <gtest/gtest.h>

#include "test_support.hpp"

namespace gpua::engine {
namespace {

using namespace testing;

std::string podWithEnv(const std::string& labels, const std::string& resources,
                       const std::string& env) {
  return R"({"metadata":{"name":"p","labels":)" + labels +
         R"(},"spec":{"containers":[{"name":"main","resources":)" + resources +
         R"(},{"name":"side","env":)" + env + "}]}}";
}

TEST(FieldGuards, VisibleDevicesAllWithoutGpuIsRefused) {
  const auto d = decidePod(
      podWithEnv("{}", "{}", R"([{"name":"NVIDIA_VISIBLE_DEVICES","value":"all"}])"), makePolicy());
  ASSERT_FALSE(d.allowed());
  EXPECT_EQ(d.violations[0].rule, "visible-devices-without-gpu");
  EXPECT_EQ(d.denial->message,
            "pod \"p\" container \"side\" sets NVIDIA_VISIBLE_DEVICES to \"all\" but asks for no "
            "GPU, which would hand it the node's GPUs behind the device plugin's back: request "
            "the GPU in resources.limits, or remove NVIDIA_VISIBLE_DEVICES (or set it to void)");
}

TEST(FieldGuards, CudaVisibleDevicesInASidecarOfAGpuPodIsRefused) {
  const auto d = decidePod(
      podWithEnv(kTraining, kOneGpu, R"([{"name":"CUDA_VISIBLE_DEVICES","value":"0,1"}])"),
      makePolicy());
  ASSERT_TRUE(hasRule(d, "visible-devices-without-gpu"));
  EXPECT_NE(d.denial->message.find("container \"side\" sets CUDA_VISIBLE_DEVICES to \"0,1\""),
            std::string::npos);
}

TEST(FieldGuards, VoidEmptyAndGpuContainersPass) {
  const auto policy = makePolicy();
  EXPECT_TRUE(
      decidePod(podWithEnv("{}", "{}", R"([{"name":"NVIDIA_VISIBLE_DEVICES","value":"void"}])"),
                policy)
          .allowed());
  EXPECT_TRUE(
      decidePod(podWithEnv("{}", "{}", R"([{"name":"CUDA_VISIBLE_DEVICES","value":""}])"), policy)
          .allowed());
  // The GPU container itself may name its devices.
  const std::string own =
      R"({"metadata":{"name":"p","labels":{"gpu-admission.io/class":"training"}},"spec":{"containers":[)"
      R"({"name":"main","env":[{"name":"NVIDIA_VISIBLE_DEVICES","value":"all"}],"resources":{"limits":{"nvidia.com/gpu":1}}}]}})";
  EXPECT_TRUE(decidePod(own, policy).allowed());
}

TEST(FieldGuards, ValueFromCannotBeJudgedAndIsRefused) {
  const auto d = decidePod(
      podWithEnv(
          "{}", "{}",
          R"([{"name":"NVIDIA_VISIBLE_DEVICES","valueFrom":{"configMapKeyRef":{"name":"c","key":"k"}}}])"),
      makePolicy());
  ASSERT_TRUE(hasRule(d, "visible-devices-without-gpu"));
  EXPECT_NE(d.denial->message.find("to a value from valueFrom"), std::string::npos);
}

TEST(FieldGuards, EachGuardCanBeTurnedOff) {
  auto policy = makePolicy();
  policy.fieldGuards.visibleDevicesEnv = false;
  EXPECT_TRUE(
      decidePod(podWithEnv("{}", "{}", R"([{"name":"NVIDIA_VISIBLE_DEVICES","value":"all"}])"),
                policy)
          .allowed());
  policy.fieldGuards.gpuPoolTargeting = false;
  EXPECT_TRUE(
      decidePod(gpuPod("{}", "{}", R"("nodeSelector":{"gpu-admission.io/pool":"train"})"), policy)
          .allowed());
  policy.fieldGuards.voidNonGpuContainers = false;
  const auto d = decideAndApply(podWithEnv(kTraining, kOneGpu, "[]"), policy);
  EXPECT_EQ(at(d.patched, "/spec/containers/1/env"), "[]");
}

TEST(FieldGuards, VoidIsWrittenByDefault) {
  const auto d = decideAndApply(podWithEnv(kTraining, kOneGpu, "[]"), makePolicy());
  EXPECT_EQ(at(d.patched, "/spec/containers/1/env"),
            R"([{"name":"NVIDIA_VISIBLE_DEVICES","value":"void"}])");
}

}  // namespace
}  // namespace gpua::engine
