// Workload kinds: pod templates are classified and validated, never mutated, no quota.
#include <gtest/gtest.h>

#include "test_support.hpp"

namespace gpua::engine {
namespace {

using namespace testing;

RequestContext workload(const std::string& group, const std::string& kind) {
  RequestContext c = podContext();
  c.group = group;
  c.kind = kind;
  return c;
}

const std::string kTemplate16 =
    R"({"metadata":{"labels":{"gpu-admission.io/class":"training"}},"spec":{"containers":[)"
    R"({"name":"pytorch","resources":{"limits":{"nvidia.com/gpu":16}}}]}})";
const std::string kTemplateOk =
    R"({"metadata":{"labels":{"gpu-admission.io/class":"training"}},"spec":{"containers":[)"
    R"({"name":"pytorch","resources":{"limits":{"nvidia.com/gpu":1}}}]}})";

TEST(Workloads, DeploymentTemplateIsValidated) {
  rapidjson::Document d =
      parse(R"({"metadata":{"name":"x"},"spec":{"template":)" + kTemplate16 + "}}");
  const Decision decision = decide(d, workload("apps", "Deployment"), makePolicy(), emptyUsage());
  EXPECT_EQ(decision.outcome, Decision::Outcome::Classified);
  EXPECT_EQ(decision.className, "training");
  ASSERT_FALSE(decision.allowed());
  EXPECT_EQ(decision.denial->message,
            "Deployment \"x\" pod template (spec.template) container \"pytorch\" asks for 16 "
            "nvidia.com/gpu but class training allows at most 8 per pod: split the job across "
            "more pods or ask the platform team for a larger limit");
  EXPECT_TRUE(decision.patch.empty());
}

TEST(Workloads, ValidTemplateIsAdmittedUnchanged) {
  UsageSnapshot full = emptyUsage();
  full.namespaces["ml-research"].gpuEquivalents = 1000;  // quotas do not apply to templates
  auto p = makePolicy();
  p.quotas[0].namespaces = {};
  rapidjson::Document d =
      parse(R"({"metadata":{"name":"x"},"spec":{"template":)" + kTemplateOk + "}}");
  const Decision decision = decide(d, workload("apps", "StatefulSet"), p, full);
  EXPECT_TRUE(decision.allowed());
  EXPECT_TRUE(decision.patch.empty());
  EXPECT_EQ(decision.reason,
            "spec.template: label gpu-admission.io/class=training (class training, match rule 1)");
}

TEST(Workloads, CronJobTemplatePath) {
  rapidjson::Document d =
      parse(R"({"metadata":{"name":"nightly"},"spec":{"jobTemplate":{"spec":{"template":)" +
            kTemplate16 + "}}}}");
  const Decision decision = decide(d, workload("batch", "CronJob"), makePolicy(), emptyUsage());
  ASSERT_FALSE(decision.allowed());
  EXPECT_EQ(decision.denial->message.rfind(
                "CronJob \"nightly\" pod template (spec.jobTemplate.spec.template) container", 0),
            0u);
}

TEST(Workloads, PyTorchJobViaTemplateKinds) {
  const std::string job = R"({"metadata":{"name":"mnist"},"spec":{"pytorchReplicaSpecs":{)"
                          R"("Master":{"replicas":1,"template":)" +
                          kTemplateOk +
                          R"(},)"
                          R"("Worker":{"replicas":3,"template":)" +
                          kTemplate16 + "}}}}";
  rapidjson::Document d = parse(job);
  const Decision decision =
      decide(d, workload("kubeflow.org", "PyTorchJob"), makePolicy(), emptyUsage());
  ASSERT_FALSE(decision.allowed());
  ASSERT_EQ(decision.violations.size(), 1u);
  EXPECT_EQ(decision.denial->message.rfind(
                "PyTorchJob \"mnist\" pod template (spec.pytorchReplicaSpecs.Worker.template) "
                "container \"pytorch\" asks for 16",
                0),
            0u);
  // Unknown custom kinds are left alone.
  EXPECT_EQ(decide(d, workload("kubeflow.org", "TFJob"), makePolicy(), emptyUsage()).outcome,
            Decision::Outcome::NotApplicable);
}

TEST(Workloads, UnclassifiedGpuTemplateAndCpuTemplate) {
  rapidjson::Document gpu = parse(
      R"({"metadata":{"name":"x"},"spec":{"template":{"spec":{"containers":[{"name":"c","resources":{"limits":{"nvidia.com/gpu":1}}}]}}}})");
  const Decision d = decide(gpu, workload("batch", "Job"), makePolicy(), emptyUsage());
  EXPECT_EQ(d.outcome, Decision::Outcome::Unclassified);
  ASSERT_FALSE(d.allowed());
  EXPECT_EQ(d.violations[0].rule, "unclassified-gpu-pod");
  rapidjson::Document cpu = parse(
      R"({"metadata":{"name":"x"},"spec":{"template":{"spec":{"containers":[{"name":"c"}]}}}})");
  const Decision c = decide(cpu, workload("apps", "DaemonSet"), makePolicy(), emptyUsage());
  EXPECT_EQ(c.outcome, Decision::Outcome::NoGpu);
  EXPECT_TRUE(c.allowed());
}

}  // namespace
}  // namespace gpua::engine
