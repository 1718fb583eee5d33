// Which pods of a class get its placement, tolerations and priority class: CPU pods of GPU-optional
// and GPU-forbidden classes go to the class's CPU pools.
#include <gtest/gtest.h>

#include "test_support.hpp"

namespace gpua::engine {
namespace {

using namespace testing;

policy::PolicySet withCpuPools() {
  auto p = makePolicy();
  policy::Pool cpu;
  cpu.name = "cpu-etl";
  cpu.cpuOnly = true;
  cpu.resource.clear();
  cpu.nodeSelector = {{"example.com/pool", "etl"}};
  cpu.matchExpressions = {{"nvidia.com/gpu.present", policy::NodeOperator::DoesNotExist, {}}};
  cpu.taints = {{"example.com/etl", "", "NoSchedule"}};
  p.cpuPools = {cpu};
  for (auto& c : p.classes)
    if (c.name == "batch") {
      c.cpuPools = {"cpu-etl"};
      c.priorityClassName = "batch-low";
    }
  return p;
}

TEST(CpuPools, ForbiddenClassPodsGetCpuPlacementTolerationAndPriority) {
  const auto d = decideAndApply(gpuPod(kBatch, "{}"), withCpuPools());
  ASSERT_TRUE(d.decision.allowed()) << d.decision.denial->message;
  EXPECT_EQ(at(d.patched,
               "/spec/affinity/nodeAffinity/requiredDuringSchedulingIgnoredDuringExecution/"
               "nodeSelectorTerms"),
            R"([{"matchExpressions":[{"key":"example.com/pool","operator":"In","values":["etl"]},)"
            R"({"key":"nvidia.com/gpu.present","operator":"DoesNotExist"}]}])");
  EXPECT_EQ(at(d.patched, "/spec/tolerations"),
            R"([{"key":"example.com/etl","operator":"Exists","effect":"NoSchedule"}])");
  EXPECT_EQ(at(d.patched, "/spec/priorityClassName"), R"("batch-low")");
  // No NVIDIA_VISIBLE_DEVICES for a CPU pod: it never lands on a GPU node.
  EXPECT_EQ(at(d.patched, "/spec/containers/0/env"), "");
}

TEST(CpuPools, OptionalClassSendsCpuPodsToCpuPoolsAndGpuPodsToGpuPools) {
  auto p = withCpuPools();
  for (auto& c : p.classes)
    if (c.name == "interactive") {
      c.gpus.request = policy::GpuRequest::Optional;
      c.cpuPools = {"cpu-etl"};
    }
  const std::string labels = R"({"gpu-admission.io/class":"interactive"})";
  const auto cpu = decideAndApply(gpuPod(labels, "{}"), p);
  EXPECT_NE(cpu.patched.find("\"etl\""), std::string::npos);
  const auto gpu = decideAndApply(gpuPod(labels, R"({"limits":{"nvidia.com/gpu.shared":1}})"), p);
  EXPECT_EQ(gpu.patched.find("\"etl\""), std::string::npos);
  EXPECT_NE(gpu.patched.find("\"dev\""), std::string::npos);
}

TEST(CpuPools, AForbiddenClassWithoutCpuPoolsStillGetsItsPriorityClass) {
  auto p = makePolicy();
  for (auto& c : p.classes)
    if (c.name == "batch") c.priorityClassName = "batch-low";
  const auto d = decideAndApply(gpuPod(kBatch, "{}"), p);
  EXPECT_EQ(at(d.patched, "/spec/priorityClassName"), R"("batch-low")");
  EXPECT_EQ(at(d.patched, "/spec/affinity"), "");
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

// --- rule scope (appliesTo) ------------------------------------------------------------------

const std::string kNotebookLabels = R"({"notebook-name":"wb1"})";
const std::string kNoCpuRequest = R"({"limits":{"memory":"1Gi"}})";

policy::ContainerRules cpuRequestsRequired(policy::RuleScope scope) {
  policy::ContainerRules r;
  r.requireRequests = {"cpu"};
  r.appliesTo = scope;
  return r;
}

TEST(RuleScope, ForbiddenClassJudgesItsPodsByTheContainersRules) {
  auto p = makePolicy();
  p.classes[3].containers = cpuRequestsRequired(policy::RuleScope::PlacedPods);
  const Decision d = decidePod(gpuPod(kBatch, kNoCpuRequest), p);
  EXPECT_TRUE(hasRule(d, "container-resources-missing"));
  EXPECT_TRUE(decidePod(gpuPod(kBatch, R"({"requests":{"cpu":"1"}})"), p).allowed());
}

TEST(RuleScope, CpuNotebookIsJudgedOnlyWhenTheScopeIsClassPods) {
  auto p = makePolicy();
  p.classes[2].gpus.request = policy::GpuRequest::Optional;
  p.classes[2].containers = cpuRequestsRequired(policy::RuleScope::PlacedPods);
  const std::string cpuNotebook = gpuPod(kNotebookLabels, kNoCpuRequest);
  EXPECT_TRUE(decidePod(cpuNotebook, p).allowed());  // not placed by the class: not judged
  p.classes[2].containers.appliesTo = policy::RuleScope::ClassPods;
  const Decision d = decidePod(cpuNotebook, p);
  ASSERT_TRUE(hasRule(d, "container-resources-missing"));
  // The GPU notebook is judged under every scope.
  p.classes[2].containers.appliesTo = policy::RuleScope::GpuPods;
  EXPECT_FALSE(
      decidePod(gpuPod(kNotebookLabels, R"({"limits":{"nvidia.com/gpu.shared":1}})"), p).allowed());
  EXPECT_TRUE(decidePod(cpuNotebook, p).allowed());
}

TEST(RuleScope, RequiredEnvOnEveryAppContainerOfAPodWithoutGpus) {
  auto p = makePolicy();
  p.classes[3].containers.requiredEnv = {{"TEAM", std::nullopt}};
  const Decision d = decidePod(gpuPod(kBatch, "{}"), p);
  ASSERT_TRUE(hasRule(d, "required-env-missing"));
  EXPECT_NE(d.denial->message.find("container \"pytorch\" sets no TEAM; class batch requires it "
                                   "on its containers"),
            std::string::npos)
      << d.denial->message;
}

TEST(RuleScope, ClassPriorityRulesFollowTheClassScope) {
  auto p = makePolicy();
  p.classes[2].gpus.request = policy::GpuRequest::Optional;
  p.classes[2].requirePriorityClass = true;
  p.classes[2].allowedPriorityClasses = {"notebooks"};
  const std::string cpuNotebook = gpuPod(kNotebookLabels, "{}");
  const std::string named =
      gpuPod(kNotebookLabels, "{}", R"("priorityClassName":"system-node-critical")");
  EXPECT_TRUE(decidePod(cpuNotebook, p).allowed());
  EXPECT_TRUE(decidePod(named, p).allowed());
  p.classes[2].appliesTo = policy::RuleScope::ClassPods;
  EXPECT_TRUE(hasRule(decidePod(cpuNotebook, p), "priority-class-missing"));
  EXPECT_TRUE(hasRule(decidePod(named, p), "priority-class-not-allowed"));
}

TEST(RuleScope, NamespaceRuleWithClassPodsJudgesTheClassesCpuPods) {
  auto p = makePolicy();
  p.classes[2].gpus.request = policy::GpuRequest::Optional;
  policy::NamespaceRule rule;
  rule.namespaces.names = {"ml-research"};
  rule.priorityClassNames = {"team-low"};
  p.namespaceRules = {rule};
  const std::string named = gpuPod(kNotebookLabels, "{}", R"("priorityClassName":"team-high")");
  EXPECT_TRUE(decidePod(named, p).allowed());
  p.namespaceRules[0].appliesTo = policy::RuleScope::ClassPods;
  const Decision d = decidePod(named, p);
  ASSERT_TRUE(hasRule(d, "priority-class-not-allowed"));
  EXPECT_NE(d.denial->message.find("namespace \"ml-research\" allows only team-low"),
            std::string::npos)
      << d.denial->message;
}

}  // namespace
}  // namespace gpua::engine
