// Outcomes before mutation: not applicable, exempt, skip rules, classes, unclassified pods.
#include <gtest/gtest.h>

#include "test_support.hpp"

namespace gpua::engine {
namespace {

using namespace testing;
using Outcome = Decision::Outcome;

Decision decideText(const std::string& pod, const policy::PolicySet& p,
                    const RequestContext& ctx = podContext()) {
  rapidjson::Document d = parse(pod);
  return decide(d, ctx, p, emptyUsage());
}

TEST(Classify, UpdateIsNotApplicable) {
  RequestContext ctx = podContext();
  ctx.operation = "UPDATE";
  const Decision d = decideText(gpuPod("{}", kOneGpu), makePolicy(), ctx);
  EXPECT_EQ(d.outcome, Outcome::NotApplicable);
  EXPECT_TRUE(d.allowed());
  EXPECT_TRUE(d.patch.empty());
}

TEST(Classify, UnknownKindIsNotApplicable) {
  RequestContext ctx = podContext();
  ctx.group = "";
  ctx.kind = "ConfigMap";
  EXPECT_EQ(decideText(R"({"data":{}})", makePolicy(), ctx).outcome, Outcome::NotApplicable);
}

TEST(Classify, EmptyKindFallsBackToTheObjectsKind) {
  RequestContext ctx = podContext();
  ctx.kind = "";
  const Decision d = decideText(
      R"({"kind":"Pod","metadata":{"name":"a"},"spec":{"containers":[{"name":"c","resources":{"limits":{"nvidia.com/gpu":1}}}]}})",
      makePolicy(), ctx);
  EXPECT_EQ(d.outcome, Outcome::Unclassified);
  EXPECT_EQ(decideText(R"({"kind":"Secret"})", makePolicy(), ctx).outcome, Outcome::NotApplicable);
}

TEST(Classify, ExemptNamespaceByNameAndByLabels) {
  auto p = makePolicy();
  const std::string pod = gpuPod("{}", kOneGpu);
  const Decision byName = decideText(pod, p, podContext("kube-system", {}));
  EXPECT_EQ(byName.outcome, Outcome::Exempt);
  EXPECT_TRUE(byName.allowed());
  EXPECT_EQ(byName.reason, "namespace \"kube-system\" is exempt");
  p.exemptNamespaces.labels.matchLabels = {{"gpu-admission.io/exempt", "true"}};
  EXPECT_EQ(decideText(pod, p, podContext("infra", {{"gpu-admission.io/exempt", "true"}})).outcome,
            Outcome::Exempt);
  EXPECT_EQ(decideText(pod, p, podContext("infra", {})).outcome, Outcome::Unclassified);
  // A listed name stays exempt when labels are also given and do not match: names OR labels.
  EXPECT_EQ(decideText(pod, p, podContext("kube-system", {})).outcome, Outcome::Exempt);
}

TEST(Classify, FirstMatchingClassWinsWithReason) {
  const Decision d = decideText(
      gpuPod(R"({"gpu-admission.io/class":"training","serving.kserve.io/inferenceservice":"x"})",
             kOneGpu),
      makePolicy());
  EXPECT_EQ(d.outcome, Outcome::Classified);
  EXPECT_EQ(d.className, "training");
  EXPECT_EQ(d.reason, "label gpu-admission.io/class=training (class training, match rule 1)");
}

TEST(Classify, ReasonNamesTheSecondRule) {
  const Decision d =
      decideText(gpuPod(R"({"training.kubeflow.org/job-name":"mnist"})", kOneGpu), makePolicy());
  EXPECT_EQ(d.className, "training");
  EXPECT_EQ(d.reason, "label training.kubeflow.org/job-name (class training, match rule 2)");
}

TEST(Classify, AllOfRulesMustHoldToo) {
  auto p = makePolicy();
  policy::MatchRule ns;
  ns.namespaces = policy::NamespaceSelector{};
  ns.namespaces->labels.matchLabels = {{"team", "ml"}};
  p.classes[0].match.all = {ns};
  const std::string pod = gpuPod(R"({"gpu-admission.io/class":"training"})", kOneGpu);
  const Decision ok = decideText(pod, p, podContext("ml-research", {{"team", "ml"}}));
  EXPECT_EQ(ok.className, "training");
  EXPECT_EQ(ok.reason,
            "label gpu-admission.io/class=training and namespace ml-research (class training, "
            "match rule 1 + all-of)");
  const Decision other = decideText(pod, p, podContext("web", {{"team", "web"}}));
  EXPECT_EQ(other.outcome, Outcome::Unclassified);
}

TEST(Classify, MatchRuleFieldsAreAnded) {
  auto p = makePolicy();
  policy::MatchRule r = labelRule("app", "x");
  r.annotationKeys = {"owner"};
  p.classes[0].match.any = {r};
  EXPECT_EQ(decideText(gpuPod(R"({"app":"x"})", kOneGpu), p).outcome, Outcome::Unclassified);
  const std::string both =
      R"({"metadata":{"name":"a","labels":{"app":"x"},"annotations":{"owner":"me"}},)"
      R"("spec":{"containers":[{"name":"c","resources":{"limits":{"nvidia.com/gpu":1}}}]}})";
  EXPECT_EQ(decideText(both, p).className, "training");
}

TEST(Classify, SchedulerNameUnsetCountsAsDefaultScheduler) {
  auto p = makePolicy();
  policy::MatchRule r;
  r.schedulerNames = {"default-scheduler"};
  p.classes[0].match.any = {r};
  EXPECT_EQ(decideText(gpuPod("{}", kOneGpu), p).className, "training");
  EXPECT_EQ(decideText(gpuPod("{}", kOneGpu, R"("schedulerName":"kai-scheduler")"), p).outcome,
            Outcome::Unclassified);
}

TEST(Classify, OwnerKindsAndResourcePrefixes) {
  auto p = makePolicy();
  policy::MatchRule owner;
  owner.ownerKinds = {"Job"};
  policy::MatchRule res;
  res.resources = {"rdma/*"};
  p.classes[0].match.any = {owner};
  p.classes[1].match.any = {res};
  const std::string owned =
      R"({"metadata":{"name":"j","ownerReferences":[{"kind":"Job","name":"j"}]},)"
      R"("spec":{"containers":[{"name":"c","resources":{"limits":{"nvidia.com/gpu":1}}}]}})";
  EXPECT_EQ(decideText(owned, p).className, "training");
  const Decision rdma =
      decideText(gpuPod("{}", R"({"limits":{"nvidia.com/gpu":1,"rdma/hca":1}})"), p);
  EXPECT_EQ(rdma.className, "inference");
  EXPECT_EQ(rdma.reason, "resource rdma/* (class inference, match rule 1)");
}

// `resources: [nvidia.com/gpu]` must not claim a container that asks for zero GPUs
// (the class then denied it as missing-gpu-request); zero means no GPU everywhere else.
TEST(Classify, ResourceRuleIgnoresZeroQuantities) {
  auto p = makePolicy();
  policy::MatchRule res;
  res.resources = {"nvidia.com/gpu", "rdma/*"};
  p.classes[0].match.any = {res};
  for (const char* zero :
       {R"({"limits":{"nvidia.com/gpu":0}})", R"({"limits":{"nvidia.com/gpu":"0"}})",
        R"({"requests":{"nvidia.com/gpu":"0"},"limits":{"nvidia.com/gpu":"0"}})",
        R"({"limits":{"rdma/hca":"0m"}})"}) {
    const Decision d = decideText(gpuPod("{}", zero), p);
    EXPECT_EQ(d.outcome, Outcome::NoGpu) << zero;
    EXPECT_TRUE(d.violations.empty()) << zero;
  }
  EXPECT_EQ(decideText(gpuPod("{}", kOneGpu), p).className, "training");
  // A malformed quantity is not zero: the class claims the pod and reports it.
  EXPECT_EQ(decideText(gpuPod("{}", R"({"limits":{"nvidia.com/gpu":"x"}})"), p).className,
            "training");
}

TEST(Classify, NoGpuAndNoClassIsNoGpu) {
  const Decision d =
      decideText(gpuPod(R"({"app":"web"})", R"({"limits":{"cpu":"1"}})"), makePolicy());
  EXPECT_EQ(d.outcome, Outcome::NoGpu);
  EXPECT_TRUE(d.allowed());
  EXPECT_TRUE(d.patch.empty());
  EXPECT_TRUE(d.warnings.empty());
}

TEST(Classify, ZeroGpuIsNoGpu) {
  const Decision d = decideText(gpuPod("{}", R"({"limits":{"nvidia.com/gpu":0}})"), makePolicy());
  EXPECT_EQ(d.outcome, Outcome::NoGpu);
  EXPECT_TRUE(d.allowed());
}

TEST(Classify, UnclassifiedGpuPodDeniedByDefault) {
  const Decision d = decideText(gpuPod("{}", kOneGpu), makePolicy());
  EXPECT_EQ(d.outcome, Outcome::Unclassified);
  ASSERT_FALSE(d.allowed());
  EXPECT_EQ(d.denial->code, 403);
  EXPECT_EQ(d.denial->reason, "Forbidden");
  EXPECT_EQ(d.denial->message,
            "pod \"trainer-0\" container \"pytorch\" asks for 1 nvidia.com/gpu but matches no GPU "
            "class of policy \"cluster\": add the label "
            "gpu-admission.io/class=<training|inference|interactive> to the pod, or ask the "
            "platform team which class fits");
  ASSERT_EQ(d.violations.size(), 1u);
  EXPECT_EQ(d.violations[0].rule, "unclassified-gpu-pod");
  EXPECT_TRUE(d.patch.empty());
}

// The way into a class is derived from the policy: only classes the namespace may use, and
// a plain list of class names when no label alone selects any of them.
TEST(Classify, UnclassifiedMessageSaysWhichLabelToAdd) {
  auto p = makePolicy();
  p.classes[1].allowedNamespaces = policy::NamespaceSelector{};
  p.classes[1].allowedNamespaces->names = {"serving"};
  p.classes[2].match.any = {labelRule("team", "x"), labelKeyRule("notebook-name")};
  p.classes[2].match.any[0].labels["role"] = "notebook";
  Decision d = decideText(gpuPod("{}", kOneGpu), p);
  EXPECT_NE(d.denial->message.find(": add the label gpu-admission.io/class=training or "
                                   "role=notebook,team=x to the pod, or ask the platform team"),
            std::string::npos)
      << d.denial->message;
  for (auto& c : p.classes) c.match.any = {labelKeyRule("k-" + c.name)};
  d = decideText(gpuPod("{}", kOneGpu), p);
  EXPECT_NE(d.denial->message.find(": ask the platform team which of the classes (training, "
                                   "inference, interactive) fits and how to select it"),
            std::string::npos)
      << d.denial->message;
}

TEST(Classify, UnclassifiedAllowAndAssign) {
  auto p = makePolicy();
  p.unclassifiedGpuPods.action = policy::UnclassifiedGpuPods::Action::Allow;
  const Decision allowed = decideText(gpuPod("{}", kOneGpu), p);
  EXPECT_EQ(allowed.outcome, Outcome::Unclassified);
  EXPECT_TRUE(allowed.allowed());
  EXPECT_TRUE(allowed.patch.empty());

  p.unclassifiedGpuPods.action = policy::UnclassifiedGpuPods::Action::AssignClass;
  p.unclassifiedGpuPods.className = "interactive";
  p.unclassifiedGpuPods.classIndex = 2;
  const Applied run = decideAndApply(gpuPod("{}", kOneGpu), p);
  EXPECT_EQ(run.decision.outcome, Outcome::Classified);
  EXPECT_EQ(run.decision.className, "interactive");
  EXPECT_EQ(run.decision.reason, "no class matched; unclassifiedGpuPods assigns class interactive");
  EXPECT_EQ(at(run.patched, "/spec/containers/0/resources/limits"),
            R"({"nvidia.com/gpu.shared":1})");
}

TEST(Classify, DraResourceClaimsCountAsGpu) {
  const Decision d = decideText(
      R"({"metadata":{"name":"dra"},"spec":{"resourceClaims":[{"name":"gpu","resourceClaimTemplateName":"t"}],)"
      R"("containers":[{"name":"c","resources":{"claims":[{"name":"gpu"}]}}]}})",
      makePolicy());
  EXPECT_EQ(d.outcome, Outcome::Unclassified);
  EXPECT_FALSE(d.allowed());
}

TEST(Classify, SkipRuleLeavesPodUntouched) {
  const Decision d =
      decideText(gpuPod("{}", kOneGpu, R"("schedulerName":"volcano")"), makePolicy());
  EXPECT_EQ(d.outcome, Outcome::Skipped);
  EXPECT_EQ(d.reason, "skip rule volcano (scheduler volcano)");
  EXPECT_TRUE(d.allowed());
  EXPECT_TRUE(d.patch.empty());
  EXPECT_TRUE(d.violations.empty());
}

TEST(Classify, ValidateOnlyRuleValidatesWithoutMutation) {
  const std::string hami = R"({"limits":{"nvidia.com/gpu":1,"nvidia.com/gpumem":3000}})";
  const Decision ok = decideText(gpuPod(R"({"gpu-admission.io/class":"inference"})", hami),
                                 makePolicy(), podContext());
  EXPECT_EQ(ok.outcome, Outcome::Classified);
  EXPECT_EQ(ok.reason.rfind("validate only, skip rule hami (resource nvidia.com/gpumem*); ", 0), 0u)
      << ok.reason;
  EXPECT_TRUE(ok.allowed());
  EXPECT_TRUE(ok.patch.empty());
  const Decision bad =
      decideText(gpuPod(R"({"gpu-admission.io/class":"training"})",
                        R"({"limits":{"nvidia.com/gpu":9,"nvidia.com/gpumem":3000}})"),
                 makePolicy());
  ASSERT_FALSE(bad.allowed());
  EXPECT_EQ(bad.violations[0].rule, "max-per-pod");
}

}  // namespace
}  // namespace gpua::engine
