// priorityClassName: set when absent or the cluster default, removing the plugin's priority.
#include <gtest/gtest.h>

#include "test_support.hpp"

namespace gpua::engine {
namespace {

using namespace testing;

TEST(MutatePriority, AddsClassPriorityWhenAbsent) {
  const Applied run = decideAndApply(gpuPod(kTraining, kOneGpu), makePolicy());
  EXPECT_EQ(at(run.patched, "/spec/priorityClassName"), R"("gpu-training")");
  EXPECT_NE(std::find(run.decision.changes.begin(), run.decision.changes.end(),
                      "priorityClassName gpu-training"),
            run.decision.changes.end());
}

TEST(MutatePriority, ReplacesGlobalDefaultAndRemovesResolvedPriority) {
  const Applied run = decideAndApply(
      gpuPod(
          kTraining, kOneGpu,
          R"("priorityClassName":"default-priority","priority":0,"preemptionPolicy":"PreemptLowerPriority")"),
      makePolicy());
  EXPECT_EQ(at(run.patched, "/spec/priorityClassName"), R"("gpu-training")");
  EXPECT_EQ(at(run.patched, "/spec/priority"), "");
  EXPECT_EQ(at(run.patched, "/spec/preemptionPolicy"), "");
  int removes = 0;
  for (const auto& op : run.decision.patch)
    if (op.kind == PatchOp::Kind::Remove) ++removes;
  EXPECT_EQ(removes, 2);
}

TEST(MutatePriority, RemovesOnlyFieldsThatArePresent) {
  const Applied run = decideAndApply(gpuPod(kTraining, kOneGpu, R"("priority":0)"), makePolicy());
  EXPECT_EQ(at(run.patched, "/spec/priority"), "");
  EXPECT_EQ(at(run.patched, "/spec/priorityClassName"), R"("gpu-training")");
}

TEST(MutatePriority, KeepsAllowedUserChoice) {
  const Applied run = decideAndApply(
      gpuPod(kTraining, kOneGpu, R"("priorityClassName":"gpu-training-high","priority":1000)"),
      makePolicy());
  ASSERT_TRUE(run.decision.allowed());
  EXPECT_EQ(at(run.patched, "/spec/priorityClassName"), R"("gpu-training-high")");
  EXPECT_EQ(at(run.patched, "/spec/priority"), "1000");
}

TEST(MutatePriority, DeniesDisallowedUserChoice) {
  rapidjson::Document pod =
      parse(gpuPod(kTraining, kOneGpu, R"("priorityClassName":"system-node-critical")"));
  const Decision d = decide(pod, podContext(), makePolicy(), emptyUsage());
  ASSERT_FALSE(d.allowed());
  EXPECT_EQ(d.violations[0].rule, "priority-class-not-allowed");
  EXPECT_EQ(d.denial->message,
            "pod \"trainer-0\" names priorityClassName \"system-node-critical\" but class training "
            "allows only gpu-training, gpu-training-high: remove priorityClassName (the class sets "
            "gpu-training) or use an allowed one");
  EXPECT_TRUE(d.patch.empty());
}

TEST(MutatePriority, EmptyAllowListRefusesOnlySystemClasses) {
  auto p = makePolicy();
  p.classes[0].allowedPriorityClasses.clear();
  rapidjson::Document ok = parse(gpuPod(kTraining, kOneGpu, R"("priorityClassName":"team-high")"));
  EXPECT_TRUE(decide(ok, podContext(), p, emptyUsage()).allowed());
  rapidjson::Document bad =
      parse(gpuPod(kTraining, kOneGpu, R"("priorityClassName":"system-cluster-critical")"));
  const Decision d = decide(bad, podContext(), p, emptyUsage());
  ASSERT_FALSE(d.allowed());
  EXPECT_NE(d.denial->message.find("allows only gpu-training"), std::string::npos);
}

TEST(MutatePriority, OverrideReplacesUserChoice) {
  auto p = makePolicy();
  p.classes[0].overridePriorityClass = true;
  const Applied run =
      decideAndApply(gpuPod(kTraining, kOneGpu,
                            R"("priorityClassName":"system-node-critical","priority":2000001000)"),
                     p);
  ASSERT_TRUE(run.decision.allowed());
  EXPECT_EQ(at(run.patched, "/spec/priorityClassName"), R"("gpu-training")");
  EXPECT_EQ(at(run.patched, "/spec/priority"), "");
}

TEST(MutatePriority, ClassWithoutPriorityLeavesItAlone) {
  const Applied run = decideAndApply(
      gpuPod(R"({"gpu-admission.io/class":"interactive"})", kOneGpu, R"("priority":0)"),
      makePolicy());
  EXPECT_EQ(at(run.patched, "/spec/priority"), "0");
  EXPECT_EQ(at(run.patched, "/spec/priorityClassName"), "");
}

}  // namespace
}  // namespace gpua::engine
