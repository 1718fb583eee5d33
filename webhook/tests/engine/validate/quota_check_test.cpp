// Quotas: total, per class, per resource; shared and per-namespace scope; unavailable usage.
#include <gtest/gtest.h>

#include "test_support.hpp"

namespace gpua::engine {
namespace {

using namespace testing;

const kube::Labels kVision{{"team", "vision"}};

std::string trainingPod(int gpus) {
  return gpuPod(R"({"gpu-admission.io/class":"training"})",
                R"({"limits":{"nvidia.com/gpu":)" + std::to_string(gpus) + "}}");
}

UsageSnapshot visionUsage(double inA, double inB) {
  UsageSnapshot u = emptyUsage();
  u.namespaceLabels = {{"vision-a", kVision}, {"vision-b", kVision}, {"other", {{"team", "x"}}}};
  u.namespaces["vision-a"].gpuEquivalents = inA;
  u.namespaces["vision-b"].gpuEquivalents = inB;
  u.namespaces["other"].gpuEquivalents = 100;
  return u;
}

Decision decideWith(const std::string& pod, const policy::PolicySet& p, const UsageSnapshot& u,
                    const std::string& ns = "vision-a") {
  rapidjson::Document d = parse(pod);
  return decide(d, podContext(ns, kVision), p, u);
}

TEST(Quota, SharedTotalSumsEveryMatchingNamespace) {
  auto p = makePolicy();
  p.quotas[0].perClass.clear();
  EXPECT_TRUE(decideWith(trainingPod(2), p, visionUsage(10, 4)).allowed());
  const Decision d = decideWith(trainingPod(4), p, visionUsage(10, 4));
  ASSERT_FALSE(d.allowed());
  EXPECT_EQ(d.violations[0].rule, "quota");
  EXPECT_EQ(d.denial->message,
            "pod \"trainer-0\" needs 4 GPU-equivalents but quota \"vision\" (namespaces with "
            "team=vision) allows 16 and 14 are in use: request at most 2 nvidia.com/gpu, or ask "
            "the platform team to raise quota \"vision\"");
  EXPECT_DOUBLE_EQ(d.gpuEquivalents, 4);
}

TEST(Quota, PerNamespaceCountsOnlyThisNamespace) {
  auto p = makePolicy();
  p.quotas[0].perClass.clear();
  p.quotas[0].scope = policy::Quota::Scope::PerNamespace;
  p.quotas[0].gpuEquivalents = 12;
  EXPECT_TRUE(decideWith(trainingPod(2), p, visionUsage(10, 10)).allowed());
  const Decision d = decideWith(trainingPod(3), p, visionUsage(10, 10));
  ASSERT_FALSE(d.allowed());
  EXPECT_NE(d.denial->message.find("quota \"vision\" (per namespace, namespaces with team=vision) "
                                   "allows 12 and 10 are in use: request at most 2 nvidia.com/gpu"),
            std::string::npos);
}

TEST(Quota, PerClass) {
  auto p = makePolicy();
  UsageSnapshot u = visionUsage(0, 0);
  u.namespaces["vision-b"].byClass["training"] = 11;
  const Decision d = decideWith(trainingPod(2), p, u);
  ASSERT_FALSE(d.allowed());
  EXPECT_EQ(d.denial->message,
            "pod \"trainer-0\" needs 2 GPU-equivalents of class training but quota \"vision\" "
            "(namespaces with team=vision) allows 12 for class training and 11 are in use: request "
            "at most 1 nvidia.com/gpu, or ask the platform team to raise quota \"vision\"");
  // Another class is not limited by the training budget.
  const Decision other = decideWith(
      gpuPod(R"({"gpu-admission.io/class":"inference"})", R"({"limits":{"nvidia.com/gpu":2}})"), p,
      u);
  EXPECT_TRUE(other.allowed());
}

TEST(Quota, PerResourceAfterRewrite) {
  auto p = makePolicy();
  p.quotas[0] = {};
  p.quotas[0].name = "mig";
  p.quotas[0].namespaces.names = {"vision-a"};
  p.quotas[0].perResource = {{"nvidia.com/mig-2g.20gb", 3}};
  UsageSnapshot u = visionUsage(0, 0);
  u.namespaces["vision-a"].byResource["nvidia.com/mig-2g.20gb"] = 2;
  const std::string pod =
      gpuPod(R"({"gpu-admission.io/class":"inference"})", R"({"limits":{"nvidia.com/gpu":2}})");
  const Decision d = decideWith(pod, p, u);
  ASSERT_FALSE(d.allowed());
  EXPECT_EQ(d.denial->message,
            "pod \"trainer-0\" needs 2 nvidia.com/mig-2g.20gb but quota \"mig\" (namespace "
            "vision-a) allows 3 nvidia.com/mig-2g.20gb and 2 are in use: request at most 1 "
            "nvidia.com/mig-2g.20gb, or ask the platform team to raise quota \"mig\"");
  EXPECT_NEAR(d.gpuEquivalents, 4.0 / 7, 1e-12);
}

TEST(Quota, FractionsPrintWithoutUselessDecimals) {
  auto p = makePolicy();
  p.quotas[0].perClass.clear();
  p.quotas[0].gpuEquivalents = 1;
  const Decision d = decideWith(
      gpuPod(R"({"gpu-admission.io/class":"inference"})", R"({"limits":{"nvidia.com/gpu":1}})"), p,
      visionUsage(0.8, 0));
  ASSERT_FALSE(d.allowed());
  EXPECT_NE(d.denial->message.find("needs 0.29 GPU-equivalents"), std::string::npos)
      << d.denial->message;
  // 0.2 left is less than one 2/7 slice.
  EXPECT_NE(d.denial->message.find("allows 1 and 0.8 are in use: wait for running GPU pods to "
                                   "finish,"),
            std::string::npos)
      << d.denial->message;
}

// Another class is suggested only when it is cheaper per unit, the namespace may use it, it
// takes the pod as it is, the pod then fits, and a label selects it ahead of the pod's class.
TEST(Quota, CheaperClassIsSuggestedOnlyWhenItWouldWork) {
  auto p = makePolicy();
  p.quotas[0].perClass.clear();
  std::swap(p.classes[0], p.classes[2]);  // interactive (1/4 per unit) before training
  const Decision one = decideWith(trainingPod(1), p, visionUsage(15.5, 0));
  ASSERT_FALSE(one.allowed());
  EXPECT_EQ(one.denial->message,
            "pod \"trainer-0\" needs 1 GPU-equivalent but quota \"vision\" (namespaces with "
            "team=vision) allows 16 and 15.5 are in use: wait for running GPU pods to finish, "
            "label the pod gpu-admission.io/class=interactive to use class interactive, where it "
            "needs 0.25 GPU-equivalents, or ask the platform team to raise quota \"vision\"");
  // Two GPUs in one container are two time-slices: refused there, so not suggested.
  const Decision two = decideWith(trainingPod(2), p, visionUsage(15.5, 0));
  EXPECT_EQ(two.denial->message.find("interactive"), std::string::npos) << two.denial->message;
  // Listed after training (the test policy's order), a label of it would not win: no advice.
  const Decision after = decideWith(trainingPod(1), makePolicy(), visionUsage(15.5, 0));
  EXPECT_EQ(after.denial->message.find("interactive"), std::string::npos);
  // "1 is in use", not "1 are".
  p.quotas[0].gpuEquivalents = 1.5;
  EXPECT_NE(
      decideWith(trainingPod(1), p, visionUsage(1, 0)).denial->message.find("and 1 is in use"),
      std::string::npos);
}

TEST(Quota, NoRoomLeft) {
  auto p = makePolicy();
  const Decision d = decideWith(trainingPod(1), p, visionUsage(16, 0));
  ASSERT_FALSE(d.allowed());
  EXPECT_NE(d.denial->message.find("wait for running GPU pods to finish"), std::string::npos);
}

TEST(Quota, OtherNamespacesAreNotCovered) {
  rapidjson::Document d = parse(trainingPod(8));
  EXPECT_TRUE(
      decide(d, podContext("other", {{"team", "x"}}), makePolicy(), visionUsage(16, 16)).allowed());
}

TEST(Quota, UnavailableFailOpenWarns) {
  UsageSnapshot u;
  u.available = false;
  u.unavailableReason = "Kubernetes API unreachable: timeout";
  const Decision d = decideWith(trainingPod(1), makePolicy(), u);
  ASSERT_TRUE(d.allowed());
  EXPECT_NE(std::find(d.warnings.begin(), d.warnings.end(),
                      "GPU quota not checked: Kubernetes API unreachable: timeout"),
            d.warnings.end());
  EXPECT_TRUE(d.quotaUnchecked);
  EXPECT_FALSE(decideWith(trainingPod(1), makePolicy(), visionUsage(0, 0)).quotaUnchecked);
}

TEST(Quota, UnavailableFailClosedDeniesInEveryMode) {
  auto p = makePolicy();
  p.quotaUnavailable = policy::QuotaUnavailable::FailClosed;
  p.rollout = {{std::nullopt, policy::Mode::Warn}};
  UsageSnapshot u;
  u.unavailableReason = "not synced yet";
  const Decision d = decideWith(trainingPod(1), p, u);
  ASSERT_FALSE(d.allowed());
  EXPECT_EQ(d.mode, policy::Mode::Warn);
  EXPECT_EQ(d.violations[0].rule, "quota-unavailable");
  EXPECT_EQ(d.denial->message,
            "pod \"trainer-0\" needs 1 GPU-equivalent but GPU quota \"vision\" could not be "
            "checked (not synced yet): retry in a minute, and tell the platform team if it "
            "persists");
  EXPECT_TRUE(d.quotaUnchecked);
  // A pod without GPUs is not held up by quota state.
  rapidjson::Document cpu = parse(gpuPod("{}", R"({"limits":{"cpu":1}})"));
  const Decision cpuDecision = decide(cpu, podContext("vision-a", kVision), p, u);
  EXPECT_TRUE(cpuDecision.allowed());
  EXPECT_FALSE(cpuDecision.quotaUnchecked);
}

}  // namespace
}  // namespace gpua::engine
