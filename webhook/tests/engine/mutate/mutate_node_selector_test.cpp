// nodeSelector placement: adding the pool's labels, and keep / deny / overwrite on a conflict.
#include <gtest/gtest.h>

#include "test_support.hpp"

namespace gpua::engine {
namespace {

using namespace testing;

policy::PolicySet withSelectorPlacement(policy::Placement::OnConflict onConflict) {
  auto p = makePolicy();
  p.classes[0].placement.via = policy::Placement::Via::NodeSelector;
  p.classes[0].placement.onConflict = onConflict;
  return p;
}

TEST(NodeSelectorPlacement, AddsTheWholeMapWhenAbsent) {
  const auto d = decideAndApply(gpuPod(kTraining, kOneGpu),
                                withSelectorPlacement(policy::Placement::OnConflict::Keep));
  ASSERT_TRUE(d.decision.allowed());
  EXPECT_EQ(
      at(d.patched, "/spec/nodeSelector"),
      R"({"gpu-admission.io/pool":"train","nvidia.com/gpu.product":"NVIDIA-H100-80GB-HBM3"})");
  EXPECT_EQ(at(d.patched, "/spec/affinity"), "");
}

TEST(NodeSelectorPlacement, AddsMissingKeysEscaped) {
  const auto d = decideAndApply(
      gpuPod(kTraining, kOneGpu, R"("nodeSelector":{"gpu-admission.io/pool":"train"})"),
      withSelectorPlacement(policy::Placement::OnConflict::Keep));
  ASSERT_TRUE(d.decision.allowed());
  bool escaped = false;
  for (const auto& op : d.decision.patch)
    escaped = escaped || op.path == "/spec/nodeSelector/nvidia.com~1gpu.product";
  EXPECT_TRUE(escaped) << serializePatch(d.decision.patch);
}

const std::string kOtherPool = R"("nodeSelector":{"gpu-admission.io/pool":"other"})";

TEST(NodeSelectorPlacement, KeepDeniesTheConflict) {
  const auto d = decidePod(gpuPod(kTraining, kOneGpu, kOtherPool),
                           withSelectorPlacement(policy::Placement::OnConflict::Keep));
  ASSERT_FALSE(d.allowed());
  EXPECT_EQ(d.violations[0].rule, "node-selector-conflict");
  EXPECT_EQ(d.denial->message,
            "pod \"trainer-0\" sets spec.nodeSelector gpu-admission.io/pool=\"other\" but class "
            "training places its pods on pool train-h100, which needs "
            "gpu-admission.io/pool=\"train\": remove that nodeSelector entry (the webhook sets it) "
            "or set it to \"train\"");
}

TEST(NodeSelectorPlacement, KeepInWarnModeKeepsTheValueAndAddsTheRest) {
  auto p = withSelectorPlacement(policy::Placement::OnConflict::Keep);
  p.rollout = {{std::nullopt, policy::Mode::Warn}};
  const auto d = decideAndApply(gpuPod(kTraining, kOneGpu, kOtherPool), p);
  ASSERT_TRUE(d.decision.allowed());
  EXPECT_EQ(at(d.patched, "/spec/nodeSelector/gpu-admission.io~1pool"), R"("other")");
  EXPECT_EQ(at(d.patched, "/spec/nodeSelector/nvidia.com~1gpu.product"),
            R"("NVIDIA-H100-80GB-HBM3")");
}

TEST(NodeSelectorPlacement, DenyInWarnModeLeavesTheSelectorAlone) {
  auto p = withSelectorPlacement(policy::Placement::OnConflict::Deny);
  p.rollout = {{std::nullopt, policy::Mode::Warn}};
  const auto d = decideAndApply(gpuPod(kTraining, kOneGpu, kOtherPool), p);
  ASSERT_TRUE(d.decision.allowed());
  EXPECT_TRUE(hasRule(d.decision, "node-selector-conflict"));
  EXPECT_EQ(at(d.patched, "/spec/nodeSelector"), R"({"gpu-admission.io/pool":"other"})");
}

TEST(NodeSelectorPlacement, OverwriteReplacesTheValue) {
  const auto d = decideAndApply(gpuPod(kTraining, kOneGpu, kOtherPool),
                                withSelectorPlacement(policy::Placement::OnConflict::Overwrite));
  ASSERT_TRUE(d.decision.allowed());
  EXPECT_TRUE(d.decision.violations.empty());
  EXPECT_EQ(at(d.patched, "/spec/nodeSelector/gpu-admission.io~1pool"), R"("train")");
}

}  // namespace
}  // namespace gpua::engine
