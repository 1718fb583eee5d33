// The shipped policies/ directory loads cleanly and says what docs/policy-reference.md says.
#include <gtest/gtest.h>

#include "policy/loader.hpp"
#include "policy_test_support.hpp"

namespace gpua::policy {
namespace {

class ShippedPolicies : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { result_ = new LoadResult(loadPolicyPaths({GPUA_POLICIES_DIR})); }
  static void TearDownTestSuite() {
    delete result_;
    result_ = nullptr;
  }
  const PolicySet& policy() {
    EXPECT_TRUE(result_->ok()) << testing::allErrors(*result_);
    return *result_->policy;
  }
  static LoadResult* result_;
};
LoadResult* ShippedPolicies::result_ = nullptr;

TEST_F(ShippedPolicies, LoadWithoutErrors) {
  ASSERT_TRUE(result_->ok()) << testing::allErrors(*result_);
  EXPECT_EQ(result_->policy->name, "cluster");
  EXPECT_GE(result_->policy->sourceFiles.size(), 3u);
}

TEST_F(ShippedPolicies, ExemptTheControlPlaneAndTheWebhook) {
  if (!result_->ok()) GTEST_FAIL() << testing::allErrors(*result_);
  const auto& p = policy();
  ASSERT_TRUE(p.hasExemptions);
  for (const char* ns : {"kube-system", "gpu-operator", "gpu-admission"})
    EXPECT_TRUE(p.exemptNamespaces.covers(ns, {})) << ns;
  EXPECT_FALSE(p.exemptNamespaces.covers("team-vision", {}));
}

TEST_F(ShippedPolicies, PoolsCoverExclusiveMigAndTimeSlicing) {
  if (!result_->ok()) GTEST_FAIL() << testing::allErrors(*result_);
  const auto& p = policy();
  const Pool* train = p.findPool("train-h100");
  const Pool* infer = p.findPool("infer-a100");
  const Pool* dev = p.findPool("dev-l4");
  ASSERT_TRUE(train && infer && dev);
  EXPECT_EQ(train->sharing, Sharing::Exclusive);
  EXPECT_EQ(infer->sharing, Sharing::Mig);
  EXPECT_EQ(dev->sharing, Sharing::TimeSlicing);
  EXPECT_EQ(dev->replicas, 4);
  EXPECT_EQ(dev->resource, "nvidia.com/gpu.shared");
  for (const Pool* pool : {train, infer, dev}) {
    ASSERT_FALSE(pool->taints.empty()) << pool->name;
    EXPECT_EQ(pool->taints[0].key, "nvidia.com/gpu");
    EXPECT_EQ(pool->taints[0].effect, "NoSchedule");
  }
}

TEST_F(ShippedPolicies, ClassesResolveToTheExpectedResources) {
  if (!result_->ok()) GTEST_FAIL() << testing::allErrors(*result_);
  const auto& p = policy();
  const WorkloadClass* training = p.findClass("training");
  const WorkloadClass* inference = p.findClass("inference");
  const WorkloadClass* interactive = p.findClass("interactive");
  const WorkloadClass* batch = p.findClass("batch");
  ASSERT_TRUE(training && inference && interactive && batch);

  EXPECT_EQ(training->resolvedResource, "nvidia.com/gpu");
  EXPECT_EQ(training->priorityClassName, "gpu-training");
  EXPECT_EQ(training->gpus.maxPerPod, 8);

  EXPECT_EQ(inference->resolvedResource, "nvidia.com/mig-2g.20gb");
  EXPECT_DOUBLE_EQ(inference->gpuEquivalentPerUnit, 2.0 / 7.0);

  EXPECT_EQ(interactive->resolvedResource, "nvidia.com/gpu.shared");
  EXPECT_TRUE(interactive->sharedResource);
  EXPECT_DOUBLE_EQ(interactive->gpuEquivalentPerUnit, 0.25);
  EXPECT_EQ(interactive->gpus.request, GpuRequest::Optional);
  EXPECT_EQ(interactive->gpus.maxPerContainer, 1);
  EXPECT_EQ(interactive->maxRunSeconds, 8 * 3600);

  EXPECT_EQ(batch->gpus.request, GpuRequest::Forbidden);
  EXPECT_TRUE(batch->pools.empty());
}

TEST_F(ShippedPolicies, TrainingMatchesKubeflowAndVolcanoHints) {
  if (!result_->ok()) GTEST_FAIL() << testing::allErrors(*result_);
  const WorkloadClass* training = policy().findClass("training");
  ASSERT_NE(training, nullptr);
  std::vector<std::string> keys;
  for (const auto& rule : training->match.any)
    keys.insert(keys.end(), rule.labelKeys.begin(), rule.labelKeys.end());
  for (const char* key : {"training.kubeflow.org/job-name", "volcano.sh/job-name"})
    EXPECT_NE(std::find(keys.begin(), keys.end(), key), keys.end()) << key;
}

TEST_F(ShippedPolicies, SkipsHamiAndOtherGpuSchedulers) {
  if (!result_->ok()) GTEST_FAIL() << testing::allErrors(*result_);
  bool hami = false, kai = false;
  for (const auto& s : policy().skip) {
    for (const auto& r : s.match.resources) hami = hami || r == "nvidia.com/gpumem*";
    for (const auto& n : s.match.schedulerNames)
      kai = kai || (n == "kai-scheduler" && s.action == SkipRule::Action::Skip);
  }
  EXPECT_TRUE(hami);
  EXPECT_TRUE(kai);
}

TEST_F(ShippedPolicies, QuotasRolloutTemplatesAndSettings) {
  if (!result_->ok()) GTEST_FAIL() << testing::allErrors(*result_);
  const auto& p = policy();
  ASSERT_FALSE(p.quotas.empty());
  EXPECT_EQ(p.quotas[0].name, "team-vision");
  EXPECT_EQ(p.quotas[0].gpuEquivalents, 16.0);
  EXPECT_EQ(p.quotas[0].perClass.at("training"), 12.0);
  ASSERT_EQ(p.rollout.size(), 3u);
  EXPECT_EQ(p.rollout[0].mode, Mode::Enforce);
  EXPECT_TRUE(p.rollout[0].namespaces->matches("x", {{"env", "dev"}}));
  EXPECT_FALSE(p.rollout.back().namespaces.has_value());
  bool pytorch = false;
  for (const auto& t : p.templateKinds)
    pytorch = pytorch || (t.apiGroup == "kubeflow.org" && t.kind == "PyTorchJob");
  EXPECT_TRUE(pytorch);
  EXPECT_EQ(p.unclassifiedGpuPods.action, UnclassifiedGpuPods::Action::Deny);
  EXPECT_EQ(p.globalDefaultPriorityClass, "default-priority");
  EXPECT_EQ(p.revision.size(), 16u);
}

}  // namespace
}  // namespace gpua::policy
