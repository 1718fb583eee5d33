// Checkpoint declarations: missing, mounted PVC or URI, dangling PVC, and tiers that require them.
#include <gtest/gtest.h>

#include "engine/classify/priority_tier.hpp"

#include "test_support.hpp"

namespace gpua::engine {
namespace {

using namespace testing;

policy::PolicySet withCheckpoints() {
  auto p = makePolicy();
  p.classes[0].requireCheckpoint = policy::CheckpointRule{{"checkpoints"}};
  return p;
}

std::string trainingPod(const std::string& annotations, const std::string& volumes,
                        const std::string& mounts) {
  return R"({"metadata":{"name":"t","labels":{"gpu-admission.io/class":"training"},"annotations":)" +
         annotations + R"(},"spec":{"volumes":)" + volumes +
         R"(,"containers":[{"name":"main","volumeMounts":)" + mounts +
         R"(,"resources":{"limits":{"nvidia.com/gpu":1}}}]}})";
}

TEST(Checkpoint, MissingDeclarationSaysHowToDeclare) {
  const auto d = decidePod(trainingPod("{}", "[]", "[]"), withCheckpoints());
  ASSERT_FALSE(d.allowed());
  EXPECT_EQ(d.violations[0].rule, "checkpoint-missing");
  EXPECT_EQ(d.denial->message,
            "pod \"t\" is in class training, which requires a checkpoint, and can be preempted, "
            "but declares no checkpoint: annotate the pod gpu-admission.io/checkpoint: "
            "pvc:<claim> (a PersistentVolumeClaim the pod mounts) or a URI such as "
            "s3://bucket/run, or mount a volume named checkpoints");
}

TEST(Checkpoint, MountedPvcUriAndNamedVolumePass) {
  const auto p = withCheckpoints();
  const std::string pvc = R"([{"name":"ck","persistentVolumeClaim":{"claimName":"run-ckpt"}}])";
  const std::string mount = R"([{"name":"ck","mountPath":"/ckpt"}])";
  EXPECT_TRUE(
      decidePod(trainingPod(R"({"gpu-admission.io/checkpoint":"pvc:run-ckpt"})", pvc, mount), p)
          .allowed());
  EXPECT_TRUE(
      decidePod(trainingPod(R"({"gpu-admission.io/checkpoint":"s3://ml/run-7"})", "[]", "[]"), p)
          .allowed());
  EXPECT_TRUE(decidePod(trainingPod("{}", R"([{"name":"checkpoints","emptyDir":{}}])",
                                    R"([{"name":"checkpoints","mountPath":"/c"}])"),
                        p)
                  .allowed());
}

TEST(Checkpoint, UnmountedPvcIsDangling) {
  const std::string pvc = R"([{"name":"ck","persistentVolumeClaim":{"claimName":"run-ckpt"}}])";
  const auto d =
      decidePod(trainingPod(R"({"gpu-admission.io/checkpoint":"pvc:run-ckpt"})", pvc, "[]"),
                withCheckpoints());
  ASSERT_FALSE(d.allowed());
  EXPECT_EQ(d.violations[0].rule, "checkpoint-dangling");
  EXPECT_NE(d.denial->message.find("mounts no volume of PersistentVolumeClaim \"run-ckpt\""),
            std::string::npos);
}

TEST(Checkpoint, NeitherPvcNorUriIsInvalid) {
  const auto d = decidePod(
      trainingPod(R"({"gpu-admission.io/checkpoint":"/mnt/ckpt"})", "[]", "[]"), withCheckpoints());
  ASSERT_FALSE(d.allowed());
  EXPECT_EQ(d.violations[0].rule, "checkpoint-invalid");
}

TEST(Checkpoint, APriorityTierCanRequireIt) {
  auto p = makePolicy();
  p.classes[1].pools = {"train-h100", "infer-a100"};  // inference may run where training runs
  p.priorityTiers = {{"gpu-training", 1000, policy::PriorityTier::Preemption::PreemptLowerPriority,
                      policy::CheckpointRule{}},
                     {"gpu-inference", 10000,
                      policy::PriorityTier::Preemption::PreemptLowerPriority, std::nullopt}};
  const auto d = decidePod(trainingPod("{}", "[]", "[]"), p);
  ASSERT_FALSE(d.allowed());
  EXPECT_EQ(d.violations[0].rule, "checkpoint-missing");
  EXPECT_NE(d.denial->message.find("runs in priority tier gpu-training, which requires"),
            std::string::npos);
  EXPECT_EQ(d.priorityClass, "gpu-training");
  EXPECT_EQ(describePriority(d.priorityClass, p.classes[0], p),
            "gpu-training (value 1000, preemptionPolicy PreemptLowerPriority; preemptible by "
            "class inference (gpu-inference) on pool train-h100)");
  p.classes[1].pools = {"infer-a100"};
  EXPECT_EQ(
      describePriority(decidePod(trainingPod("{}", "[]", "[]"), p).priorityClass, p.classes[0], p),
      "gpu-training (value 1000, preemptionPolicy PreemptLowerPriority; no class of a "
      "higher tier shares its pools)");
}

}  // namespace
}  // namespace gpua::engine
