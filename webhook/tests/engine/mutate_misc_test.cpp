// runtimeClassName, activeDeadlineSeconds, NVIDIA_VISIBLE_DEVICES=void, annotations, warning.
#include <gtest/gtest.h>

#include "test_support.hpp"

namespace gpua::engine {
namespace {

using namespace testing;

const std::string kTraining = R"({"gpu-admission.io/class":"training"})";
const std::string kOneGpu = R"({"limits":{"nvidia.com/gpu":1}})";

TEST(MutateRuntime, SetsRuntimeClassWhenAbsentOnly) {
  auto p = makePolicy();
  p.pools[0].runtimeClassName = "nvidia";
  const Applied run = decideAndApply(gpuPod(kTraining, kOneGpu, R"("overhead":{"cpu":"10m"})"), p);
  EXPECT_EQ(at(run.patched, "/spec/runtimeClassName"), R"("nvidia")");
  EXPECT_EQ(at(run.patched, "/spec/overhead"), R"({"cpu":"10m"})");
  for (const auto& op : run.decision.patch) EXPECT_NE(op.path, "/spec/overhead");
  const Applied kept =
      decideAndApply(gpuPod(kTraining, kOneGpu, R"("runtimeClassName":"kata")"), p);
  EXPECT_EQ(at(kept.patched, "/spec/runtimeClassName"), R"("kata")");
}

TEST(MutateRuntime, ActiveDeadlineSetOrLowered) {
  const std::string cls = R"({"gpu-admission.io/class":"interactive"})";
  const Applied absent = decideAndApply(gpuPod(cls, kOneGpu), makePolicy());
  EXPECT_EQ(at(absent.patched, "/spec/activeDeadlineSeconds"), "28800");
  const Applied larger =
      decideAndApply(gpuPod(cls, kOneGpu, R"("activeDeadlineSeconds":999999)"), makePolicy());
  EXPECT_EQ(at(larger.patched, "/spec/activeDeadlineSeconds"), "28800");
  const Applied smaller =
      decideAndApply(gpuPod(cls, kOneGpu, R"("activeDeadlineSeconds":60)"), makePolicy());
  EXPECT_EQ(at(smaller.patched, "/spec/activeDeadlineSeconds"), "60");
}

TEST(MutateSidecarEnv, VoidForContainersWithoutGpu) {
  const std::string pod =
      R"({"metadata":{"name":"p","labels":{"gpu-admission.io/class":"training"}},"spec":{)"
      R"("initContainers":[{"name":"fetch"}],"containers":[)"
      R"({"name":"sidecar","env":[{"name":"A","value":"1"}]},)"
      R"({"name":"main","resources":{"limits":{"nvidia.com/gpu":1}}},)"
      R"({"name":"proxy"},)"
      R"({"name":"own","env":[{"name":"NVIDIA_VISIBLE_DEVICES","value":"none"}]}]}})";
  const Applied run = decideAndApply(pod, makePolicy());
  const std::string voidEnv = R"({"name":"NVIDIA_VISIBLE_DEVICES","value":"void"})";
  EXPECT_EQ(at(run.patched, "/spec/containers/0/env"),
            R"([{"name":"A","value":"1"},)" + voidEnv + "]");
  EXPECT_EQ(at(run.patched, "/spec/containers/1/env"), "");
  EXPECT_EQ(at(run.patched, "/spec/containers/2/env"), "[" + voidEnv + "]");
  EXPECT_EQ(at(run.patched, "/spec/containers/3/env"),
            R"([{"name":"NVIDIA_VISIBLE_DEVICES","value":"none"}])");
  EXPECT_EQ(at(run.patched, "/spec/initContainers/0/env"), "[" + voidEnv + "]");
}

TEST(MutateAnnotations, CreatedWholeOrAddedWithEscapedKeys) {
  const Applied none = decideAndApply(gpuPod(kTraining, kOneGpu), makePolicy());
  EXPECT_EQ(at(none.patched, "/metadata/annotations"),
            R"({"gpu-admission.io/class":"training","gpu-admission.io/policy":"cluster@r1a2b3"})");
  const std::string withAnnotations =
      R"({"metadata":{"name":"p","labels":{"gpu-admission.io/class":"training"},"annotations":{"a":"b","gpu-admission.io/class":"old"}},)"
      R"("spec":{"containers":[{"name":"c","resources":{"limits":{"nvidia.com/gpu":1}}}]}})";
  const Applied some = decideAndApply(withAnnotations, makePolicy());
  EXPECT_EQ(
      at(some.patched, "/metadata/annotations"),
      R"({"a":"b","gpu-admission.io/class":"training","gpu-admission.io/policy":"cluster@r1a2b3"})");
  bool escaped = false;
  for (const auto& op : some.decision.patch)
    escaped = escaped || op.path == "/metadata/annotations/gpu-admission.io~1policy";
  EXPECT_TRUE(escaped);
}

TEST(MutationWarning, OneShortLineListingTheChanges) {
  const Applied run = decideAndApply(gpuPod(kTraining, kOneGpu), makePolicy());
  ASSERT_EQ(run.decision.warnings.size(), 1u);
  EXPECT_EQ(run.decision.warnings[0],
            "gpu-admission: class training: node affinity pool train-h100, toleration "
            "nvidia.com/gpu, priorityClassName gpu-training");
  EXPECT_EQ(run.decision.changes.size(), 3u);
}

TEST(MutationWarning, LongListsAreCut) {
  auto p = makePolicy();
  for (int i = 0; i < 12; ++i)
    p.pools[0].taints.push_back({"taint-key-number-" + std::to_string(i), "", ""});
  const Applied run = decideAndApply(gpuPod(kTraining, kOneGpu), p);
  ASSERT_EQ(run.decision.warnings.size(), 1u);
  EXPECT_LE(run.decision.warnings[0].size(), 130u);
  EXPECT_NE(run.decision.warnings[0].find("more)"), std::string::npos);
}

// A CPU notebook carries the same labels as a GPU notebook: it is in the class, but the
// class's GPU side effects (placement, priority tier, runtime class, deadline) are not for it.
TEST(Mutation, CpuPodOfOptionalGpuClassGetsOnlyTheAnnotations) {
  auto p = makePolicy();
  p.classes[2].gpus.request = policy::GpuRequest::Optional;  // interactive, maxRunSeconds 8 h
  p.classes[2].priorityClassName = "gpu-interactive";
  p.pools[2].runtimeClassName = "nvidia";
  const std::string labels = R"({"notebook-name":"wb1"})";
  const Applied cpu = decideAndApply(
      gpuPod(labels, R"({"limits":{"cpu":"1"}})", R"("priorityClassName":"system-node-critical")"),
      p);
  ASSERT_TRUE(cpu.decision.allowed()) << cpu.decision.denial->message;
  EXPECT_EQ(cpu.decision.className, "interactive");
  EXPECT_TRUE(cpu.decision.changes.empty());
  EXPECT_TRUE(cpu.decision.warnings.empty());
  for (const auto& op : cpu.decision.patch)
    EXPECT_EQ(op.path.rfind("/metadata/annotations", 0), 0u) << op.path;
  EXPECT_EQ(at(cpu.patched, "/metadata/annotations/gpu-admission.io~1class"), R"("interactive")");
  EXPECT_EQ(at(cpu.patched, "/spec/priorityClassName"), R"("system-node-critical")");
  EXPECT_EQ(at(cpu.patched, "/spec/activeDeadlineSeconds"), "");
  EXPECT_EQ(at(cpu.patched, "/spec/runtimeClassName"), "");
  EXPECT_EQ(at(cpu.patched, "/spec/tolerations"), "");

  // The same notebook with a time-slice gets all of them.
  const Applied gpu =
      decideAndApply(gpuPod(labels, R"({"limits":{"nvidia.com/gpu.shared":1}})"), p);
  ASSERT_TRUE(gpu.decision.allowed());
  EXPECT_EQ(at(gpu.patched, "/spec/priorityClassName"), R"("gpu-interactive")");
  EXPECT_EQ(at(gpu.patched, "/spec/activeDeadlineSeconds"), "28800");
  EXPECT_EQ(at(gpu.patched, "/spec/runtimeClassName"), R"("nvidia")");
  EXPECT_NE(at(gpu.patched, "/spec/tolerations").find("nvidia.com/gpu"), std::string::npos);
}

}  // namespace
}  // namespace gpua::engine
