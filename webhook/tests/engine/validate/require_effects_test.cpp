// Require instead of fix (docs/policy-reference.md): a class whose effects are in require mode
// never writes them, refuses a pod that lacks or contradicts them with the exact fix, and passes
// a pod that carries them (in particular its own mutate-mode output). Allowed runtime classes,
// namespace rules and "a priority class is required".
#include <gtest/gtest.h>

#include "test_support.hpp"

namespace gpua::engine {
namespace {

using namespace testing;
using policy::EffectMode;

policy::PolicySet requirePolicy() {
  auto p = makePolicy();
  for (auto& c : p.classes)
    c.effects = {EffectMode::Require, EffectMode::Require, EffectMode::Require,
                 EffectMode::Require, EffectMode::Require, EffectMode::Require};
  return p;
}

std::vector<std::string> rules(const Decision& d) {
  std::vector<std::string> out;
  for (const auto& v : d.violations) out.push_back(v.rule);
  return out;
}

std::string messageOf(const Decision& d, const std::string& rule) {
  for (const auto& v : d.violations)
    if (v.rule == rule) return v.message;
  return {};
}

const std::string kTrainingPod =
    gpuPod(R"({"gpu-admission.io/class":"training"})", R"({"limits":{"nvidia.com/gpu":2}})");

TEST(RequireEffects, LackingPodIsDeniedWithTheExactFixAndNoPatch) {
  rapidjson::Document pod = parse(kTrainingPod);
  const Decision d = decide(pod, podContext(), requirePolicy(), emptyUsage());
  EXPECT_FALSE(d.allowed());
  EXPECT_TRUE(d.patch.empty());
  EXPECT_EQ(rules(d), (std::vector<std::string>{"node-placement-required", "toleration-required",
                                                "priority-class-required"}));
  EXPECT_EQ(messageOf(d, "toleration-required"),
            "pod \"trainer-0\" does not tolerate the taints of pool train-h100, which class "
            "training requires rather than adds: set spec.tolerations: "
            R"([{"key":"nvidia.com/gpu","operator":"Exists","effect":"NoSchedule"}])");
  EXPECT_EQ(messageOf(d, "priority-class-required"),
            "pod \"trainer-0\" names no priorityClassName, which class training requires rather "
            "than adds: set spec.priorityClassName: \"gpu-training\"");
  EXPECT_EQ(
      messageOf(d, "node-placement-required"),
      "pod \"trainer-0\" does not select the nodes of pool train-h100, which class training "
      "requires rather than adds: set spec.affinity: "
      R"({"nodeAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":{"nodeSelectorTerms":[{"matchExpressions":[{"key":"gpu-admission.io/pool","operator":"In","values":["train"]},{"key":"nvidia.com/gpu.product","operator":"In","values":["NVIDIA-H100-80GB-HBM3"]}]}]}}})"
      " (or add to spec.nodeSelector: "
      R"({"gpu-admission.io/pool":"train","nvidia.com/gpu.product":"NVIDIA-H100-80GB-HBM3"}))");
}

// What mutate mode writes is exactly what require mode demands: its output passes, with no
// patch at all (the decision annotations are already there).
TEST(RequireEffects, MutateModeOutputPassesRequireMode) {
  const Applied mutated = decideAndApply(kTrainingPod, makePolicy());
  ASSERT_TRUE(mutated.decision.allowed());
  rapidjson::Document pod = parse(mutated.patched);
  auto p = requirePolicy();
  p.revision = makePolicy().revision;
  const Decision d = decide(pod, podContext(), p, emptyUsage());
  EXPECT_TRUE(d.allowed()) << d.denial->message;
  EXPECT_TRUE(d.violations.empty());
  EXPECT_TRUE(d.patch.empty()) << serializePatch(d.patch);
}

TEST(RequireEffects, PodCarryingTheEffectsItselfGetsOnlyTheDecisionAnnotations) {
  const std::string pod = gpuPod(
      R"({"gpu-admission.io/class":"training"})", R"({"limits":{"nvidia.com/gpu":2}})",
      R"("priorityClassName":"gpu-training-high",)"
      R"("nodeSelector":{"gpu-admission.io/pool":"train","nvidia.com/gpu.product":"NVIDIA-H100-80GB-HBM3"},)"
      R"("tolerations":[{"operator":"Exists"}])");
  const Applied run = decideAndApply(pod, requirePolicy());
  EXPECT_TRUE(run.decision.allowed()) << run.decision.denial->message;
  EXPECT_TRUE(run.decision.violations.empty());
  for (const auto& op : run.decision.patch)
    EXPECT_TRUE(op.path.starts_with("/metadata/annotations")) << op.path;
}

// A pool selected by labels plus an expression no nodeSelector can state.
policy::PolicySet requirePolicyWithDrainingExpression() {
  auto p = requirePolicy();
  p.pools[0].matchExpressions = {{"example.com/draining", policy::NodeOperator::DoesNotExist, {}}};
  return p;
}

const std::string kTrainNodeSelector =
    R"("nodeSelector":{"gpu-admission.io/pool":"train","nvidia.com/gpu.product":"NVIDIA-H100-80GB-HBM3"})";
const std::string kDrainingAffinity =
    R"({"nodeAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":{"nodeSelectorTerms":[{"matchExpressions":[{"key":"example.com/draining","operator":"DoesNotExist"}]}]}}})";
const std::string kCarriedEffects =
    R"("priorityClassName":"gpu-training","tolerations":[{"operator":"Exists"}])";

// A nodeSelector holding the pool's labels lets the pod onto draining nodes too: mutate mode
// would still add the DoesNotExist expression, so require refuses it, and the fix it names is
// node affinity with the expression (a nodeSelector alone cannot state it).
TEST(RequireEffects, NodeSelectorWithThePoolLabelsButNotItsExpressionsIsDenied) {
  rapidjson::Document pod =
      parse(gpuPod(R"({"gpu-admission.io/class":"training"})", R"({"limits":{"nvidia.com/gpu":1}})",
                   kCarriedEffects + "," + kTrainNodeSelector));
  const Decision d = decide(pod, podContext(), requirePolicyWithDrainingExpression(), emptyUsage());
  EXPECT_EQ(rules(d), std::vector<std::string>{"node-placement-required"});
  const std::string message = messageOf(d, "node-placement-required");
  EXPECT_NE(message.find(R"({"key":"example.com/draining","operator":"DoesNotExist"})"),
            std::string::npos)
      << message;
  // The labels are in spec.nodeSelector already: the fix is the expression alone.
  EXPECT_TRUE(message.ends_with("set spec.affinity: " + kDrainingAffinity)) << message;
}

// Require understands implication as mutate does: a nodeSelector value implies the pool's
// `Exists` and `NotIn [""]`; an empty value implies Exists but not `NotIn [""]`.
TEST(RequireEffects, NodeSelectorValuesThatImplyThePoolsExpressionsPass) {
  auto p = requirePolicy();
  p.pools[0].matchExpressions = {{"example.com/tier", policy::NodeOperator::Exists, {}},
                                 {"example.com/tier", policy::NodeOperator::NotIn, {""}}};
  const auto withTier = [](const std::string& tier) {
    return gpuPod(
        R"({"gpu-admission.io/class":"training"})", R"({"limits":{"nvidia.com/gpu":1}})",
        kCarriedEffects +
            R"(,"nodeSelector":{"gpu-admission.io/pool":"train","nvidia.com/gpu.product":"NVIDIA-H100-80GB-HBM3","example.com/tier":")" +
            tier + R"("})");
  };
  rapidjson::Document gold = parse(withTier("gold"));
  const Decision passes = decide(gold, podContext(), p, emptyUsage());
  EXPECT_TRUE(passes.violations.empty()) << messageOf(passes, "node-placement-required");
  rapidjson::Document empty = parse(withTier(""));
  const std::string message =
      messageOf(decide(empty, podContext(), p, emptyUsage()), "node-placement-required");
  EXPECT_NE(message.find(R"({"key":"example.com/tier","operator":"NotIn","values":[""]})"),
            std::string::npos)
      << message;
  EXPECT_EQ(message.find(R"("operator":"Exists")"), std::string::npos) << message;
}

// A pod with neither: the alternative to the whole affinity is the labels in spec.nodeSelector
// plus the expressions in node affinity, never the labels alone.
TEST(RequireEffects, NodeSelectorAlternativeOfAPoolWithExpressionsNamesTheAffinityToo) {
  rapidjson::Document pod = parse(kTrainingPod);
  const std::string message =
      messageOf(decide(pod, podContext(), requirePolicyWithDrainingExpression(), emptyUsage()),
                "node-placement-required");
  EXPECT_TRUE(message.ends_with(
      R"( (or add to spec.nodeSelector: {"gpu-admission.io/pool":"train","nvidia.com/gpu.product":"NVIDIA-H100-80GB-HBM3"} and set spec.affinity: )" +
      kDrainingAffinity + ")"))
      << message;
}

// The alternative the message names passes: the labels in spec.nodeSelector, the expression in
// the required term (the scheduler ANDs the two).
TEST(RequireEffects, NodeSelectorLabelsWithTheExpressionsInTheTermPass) {
  const std::string affinity = R"("affinity":)" + kDrainingAffinity;
  rapidjson::Document pod =
      parse(gpuPod(R"({"gpu-admission.io/class":"training"})", R"({"limits":{"nvidia.com/gpu":1}})",
                   kCarriedEffects + "," + kTrainNodeSelector + "," + affinity));
  const Decision d = decide(pod, podContext(), requirePolicyWithDrainingExpression(), emptyUsage());
  EXPECT_TRUE(d.violations.empty()) << messageOf(d, "node-placement-required");
}

TEST(RequireEffects, PlacementMessageNamesAPoolThatSelectsByExpressionsOnly) {
  auto p = requirePolicyWithDrainingExpression();
  p.pools[0].nodeSelector.clear();
  rapidjson::Document pod = parse(kTrainingPod);
  const std::string message =
      messageOf(decide(pod, podContext(), p, emptyUsage()), "node-placement-required");
  EXPECT_TRUE(
      message.starts_with("pod \"trainer-0\" does not select the nodes of pool "
                          "train-h100, which class training requires rather than adds: "
                          "set spec.affinity: "))
      << message;
  EXPECT_EQ(message.find("spec.nodeSelector"), std::string::npos) << message;
}

TEST(RequireEffects, ContradictingPriorityClassUnderOverrideIsDenied) {
  auto p = requirePolicy();
  p.classes[0].overridePriorityClass = true;
  rapidjson::Document pod =
      parse(gpuPod(R"({"gpu-admission.io/class":"training"})", R"({"limits":{"nvidia.com/gpu":1}})",
                   R"("priorityClassName":"gpu-training-high")"));
  const Decision d = decide(pod, podContext(), p, emptyUsage());
  EXPECT_EQ(messageOf(d, "priority-class-required"),
            "pod \"trainer-0\" names priorityClassName \"gpu-training-high\" instead of "
            "gpu-training, which class training requires rather than adds: set "
            "spec.priorityClassName: \"gpu-training\"");
}

TEST(RequireEffects, ResourceNameIsNotRewrittenButDemanded) {
  const std::string asked =
      gpuPod(R"({"serving.kserve.io/inferenceservice":"llm"})",
             R"({"limits":{"nvidia.com/gpu":1},"requests":{"nvidia.com/gpu":1}})");
  rapidjson::Document pod = parse(asked);
  const Decision d = decide(pod, podContext(), requirePolicy(), emptyUsage());
  EXPECT_EQ(messageOf(d, "resource-name-required"),
            "pod \"trainer-0\" container \"pytorch\" asks for nvidia.com/gpu but class inference "
            "runs on nvidia.com/mig-2g.20gb, which it requires rather than rewrites: write "
            R"(spec.containers[0].resources.limits {"nvidia.com/mig-2g.20gb":1} (and the same )"
            "requests, or none) instead of nvidia.com/gpu");
  const std::string right = gpuPod(R"({"serving.kserve.io/inferenceservice":"llm"})",
                                   R"({"limits":{"nvidia.com/mig-2g.20gb":1}})");
  rapidjson::Document ok = parse(right);
  const Decision passes = decide(ok, podContext(), requirePolicy(), emptyUsage());
  EXPECT_EQ(messageOf(passes, "resource-name-required"), "");
}

TEST(RequireEffects, WarnModeAdmitsWithTheFixAsAWarningAndWritesNoEffect) {
  auto p = requirePolicy();
  p.rollout = {{std::nullopt, policy::Mode::Warn}};
  const Applied run = decideAndApply(kTrainingPod, p);
  EXPECT_TRUE(run.decision.allowed());
  EXPECT_EQ(at(run.patched, "/spec/tolerations"), "");
  EXPECT_EQ(at(run.patched, "/spec/priorityClassName"), "");
  bool warned = false;
  for (const auto& w : run.decision.warnings)
    warned = warned || w.find("toleration") != std::string::npos;
  EXPECT_TRUE(warned);
}

TEST(RequireEffects, OneEffectRequiredTheOthersStillMutate) {
  auto p = makePolicy();
  p.classes[0].effects.toleration = EffectMode::Require;
  rapidjson::Document pod =
      parse(gpuPod(R"({"gpu-admission.io/class":"training"})", R"({"limits":{"nvidia.com/gpu":1}})",
                   R"("tolerations":[{"key":"nvidia.com/gpu","operator":"Exists"}])"));
  const Decision d = decide(pod, podContext(), p, emptyUsage());
  EXPECT_TRUE(d.allowed());
  EXPECT_NE(serializePatch(d.patch).find("priorityClassName"), std::string::npos);
  EXPECT_EQ(serializePatch(d.patch).find("tolerations"), std::string::npos);
}

TEST(RequireEffects, RuntimeClassRequiredAndAllowed) {
  auto p = requirePolicy();
  p.pools[0].runtimeClassName = "nvidia";
  const std::string base =
      R"("priorityClassName":"gpu-training","nodeSelector":{"gpu-admission.io/pool":"train","nvidia.com/gpu.product":"NVIDIA-H100-80GB-HBM3"},"tolerations":[{"operator":"Exists"}])";
  const std::string labels = R"({"gpu-admission.io/class":"training"})";
  const std::string gpu = R"({"limits":{"nvidia.com/gpu":1}})";
  rapidjson::Document none = parse(gpuPod(labels, gpu, base));
  EXPECT_EQ(messageOf(decide(none, podContext(), p, emptyUsage()), "runtime-class-required"),
            "pod \"trainer-0\" names no runtimeClassName for the GPU nodes of pool train-h100, "
            "which class training requires rather than adds: set spec.runtimeClassName: "
            "\"nvidia\"");
  rapidjson::Document other = parse(gpuPod(labels, gpu, base + R"(,"runtimeClassName":"kata")"));
  EXPECT_EQ(messageOf(decide(other, podContext(), p, emptyUsage()), "runtime-class-not-allowed"),
            "pod \"trainer-0\" names runtimeClassName \"kata\" but class training allows only "
            "nvidia: set spec.runtimeClassName: nvidia");
  p.classes[0].allowedRuntimeClasses = {"kata"};
  EXPECT_TRUE(decide(other, podContext(), p, emptyUsage()).violations.empty());
}

TEST(RequireEffects, PriorityClassRequiredByClassAndByNamespace) {
  auto p = makePolicy();
  p.classes[0].priorityClassName.reset();  // the class writes none: the user must choose
  p.classes[0].requirePriorityClass = true;
  rapidjson::Document pod = parse(kTrainingPod);
  EXPECT_EQ(messageOf(decide(pod, podContext(), p, emptyUsage()), "priority-class-missing"),
            "pod \"trainer-0\" names no priorityClassName, but class training requires one: set "
            "spec.priorityClassName to one of gpu-training-high");
  // The global default written by the Priority plugin is no choice either.
  rapidjson::Document dflt =
      parse(gpuPod(R"({"gpu-admission.io/class":"training"})", R"({"limits":{"nvidia.com/gpu":1}})",
                   R"("priorityClassName":"default-priority")"));
  EXPECT_EQ(rules(decide(dflt, podContext(), p, emptyUsage())),
            std::vector<std::string>{"priority-class-missing"});

  auto q = makePolicy();
  policy::NamespaceRule rule;
  rule.namespaces.names = {"ml-research"};
  rule.priorityClassNames = {"gpu-training-low"};
  q.namespaceRules = {rule};
  // The class would write gpu-training, which the namespace does not allow.
  EXPECT_EQ(messageOf(decide(pod, podContext(), q, emptyUsage()), "priority-class-not-allowed"),
            "pod \"trainer-0\" would run with priorityClassName \"gpu-training\" but namespace "
            "\"ml-research\" allows only gpu-training-low: set spec.priorityClassName to one of "
            "them");
  EXPECT_TRUE(decide(pod, podContext("other"), q, emptyUsage()).violations.empty());
}

// Require reads an empty label value like mutate writes it: the pod carrying `In [""]` passes.
TEST(RequireEffects, EmptyLabelValueExpressionCarriedByThePodPasses) {
  auto p = requirePolicy();
  p.pools[0].nodeSelector.clear();
  p.pools[0].matchExpressions = {
      {"node-role.kubernetes.io/gpu-worker", policy::NodeOperator::In, {""}}};
  const auto placed = [&](const std::string& values) {
    rapidjson::Document pod = parse(gpuPod(
        R"({"gpu-admission.io/class":"training"})", R"({"limits":{"nvidia.com/gpu":1}})",
        kCarriedEffects +
            R"(,"affinity":{"nodeAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":{"nodeSelectorTerms":[{"matchExpressions":[{"key":"node-role.kubernetes.io/gpu-worker","operator":"In","values":)" +
            values + "}]}]}}}"));
    return decide(pod, podContext(), p, emptyUsage()).violations.empty();
  };
  EXPECT_TRUE(placed(R"([""])"));
  EXPECT_FALSE(placed(R"(["yes"])"));
}

}  // namespace
}  // namespace gpua::engine
