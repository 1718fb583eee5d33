// placement-conflict: the pod's own selection against its class's pools, decided from the
// selectors alone (no node data).
#include <gtest/gtest.h>

#include "test_support.hpp"

namespace gpua::engine {
namespace {

using namespace testing;

// The training pool also asks for nvidia.com/gpu.present=true, as GPU Feature Discovery labels.
policy::PolicySet policyWithPresent(policy::Mode mode = policy::Mode::Enforce) {
  auto p = makePolicy();
  p.pools[0].nodeSelector["nvidia.com/gpu.present"] = "true";
  p.rollout = {{std::nullopt, mode}};
  return p;
}

std::string affinity(const std::string& terms) {
  return R"("affinity":{"nodeAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":)"
         R"({"nodeSelectorTerms":[)" +
         terms + "]}}}";
}

std::string expr(const std::string& key, const std::string& op, const std::string& values = "") {
  return R"({"key":")" + key + R"(","operator":")" + op + "\"" +
         (values.empty() ? "" : R"(,"values":[)" + values + "]") + "}";
}

std::string term(const std::string& exprs) {
  return R"({"matchExpressions":[)" + exprs + "]}";
}

Decision decideSpec(const std::string& extraSpec, const policy::PolicySet& p) {
  rapidjson::Document pod = parse(gpuPod(kTraining, kOneGpu, extraSpec));
  return decide(pod, podContext(), p, emptyUsage());
}

const Violation* placementViolation(const Decision& d) {
  for (const auto& v : d.violations)
    if (v.rule == "placement-conflict") return &v;
  return nullptr;
}

bool conflicts(const std::string& extraSpec, const policy::PolicySet& p = policyWithPresent()) {
  return placementViolation(decideSpec(extraSpec, p)) != nullptr;
}

TEST(PlacementConflict, AffinityInAgainstPoolIn) {
  const Decision d = decideSpec(affinity(term(expr("nvidia.com/gpu.present", "In", R"("false")"))),
                                policyWithPresent());
  ASSERT_FALSE(d.allowed());
  const Violation* v = placementViolation(d);
  ASSERT_NE(v, nullptr);
  EXPECT_EQ(v->message,
            "pod \"trainer-0\": its node affinity term 1 nvidia.com/gpu.present In [false] "
            "contradicts pool train-h100 of class training, which requires "
            "nvidia.com/gpu.present In [true]: no node can satisfy both, so the pod would never "
            "schedule; change or remove the pod's nvidia.com/gpu.present requirement, or use a "
            "class whose pools allow it");
  EXPECT_TRUE(d.patch.empty());
}

TEST(PlacementConflict, NodeSelectorAgainstPool) {
  const Decision d = decideSpec(R"("nodeSelector":{"gpu-admission.io/pool":"dev"})", makePolicy());
  const Violation* v = placementViolation(d);
  ASSERT_NE(v, nullptr);
  EXPECT_NE(v->message.find("its nodeSelector gpu-admission.io/pool=dev contradicts pool "
                            "train-h100 of class training, which requires gpu-admission.io/pool "
                            "In [train]"),
            std::string::npos)
      << v->message;
  EXPECT_FALSE(conflicts(R"("nodeSelector":{"gpu-admission.io/pool":"train","zone":"a"})"));
}

TEST(PlacementConflict, EveryOperator) {
  const std::string k = "gpu-admission.io/pool";
  EXPECT_TRUE(conflicts(affinity(term(expr(k, "NotIn", R"("train")")))));
  EXPECT_FALSE(conflicts(affinity(term(expr(k, "NotIn", R"("dev")")))));
  EXPECT_TRUE(conflicts(affinity(term(expr(k, "DoesNotExist")))));
  EXPECT_FALSE(conflicts(affinity(term(expr(k, "Exists")))));
  EXPECT_FALSE(conflicts(affinity(term(expr(k, "In", R"("dev","train")")))));
  // "train" is no integer: Gt and Lt cannot hold on the pool's key.
  EXPECT_TRUE(conflicts(affinity(term(expr(k, "Gt", R"("3")")))));
  EXPECT_TRUE(conflicts(affinity(term(expr(k, "Lt", R"("3")")))));
  // On keys the pool leaves free, any satisfiable requirement is fine.
  EXPECT_FALSE(conflicts(affinity(term(expr("nvidia.com/gpu.count", "Gt", R"("3")")))));
  EXPECT_TRUE(conflicts(affinity(term(expr("nvidia.com/gpu.count", "Gt", R"("3")") + "," +
                                      expr("nvidia.com/gpu.count", "Lt", R"("4")")))));
}

TEST(PlacementConflict, TermsAreOred) {
  const std::string bad = term(expr("nvidia.com/gpu.present", "In", R"("false")"));
  const std::string good = term(expr("zone", "In", R"("a")"));
  // One satisfiable term is enough; the mutation's AND then retires the other.
  const Applied run =
      decideAndApply(gpuPod(kTraining, kOneGpu, affinity(bad + "," + good)), policyWithPresent());
  EXPECT_TRUE(run.decision.allowed());
  EXPECT_EQ(placementViolation(run.decision), nullptr);
  const Decision both = decideSpec(affinity(bad + "," + bad), policyWithPresent());
  const Violation* v = placementViolation(both);
  ASSERT_NE(v, nullptr);
  EXPECT_NE(v->message.find("each of its other node affinity terms contradicts too"),
            std::string::npos);
}

TEST(PlacementConflict, NodeSelectorIsAndedWithEveryTerm) {
  // The nodeSelector holds on its own, the term on its own: together they cannot.
  const std::string spec =
      R"("nodeSelector":{"zone":"a"},)" + affinity(term(expr("zone", "In", R"("b")")));
  const Decision d = decideSpec(spec, policyWithPresent());
  const Violation* v = placementViolation(d);
  ASSERT_NE(v, nullptr);
  EXPECT_NE(v->message.find("its nodeSelector zone=a and node affinity term 1 zone In [b] "
                            "contradict each other"),
            std::string::npos)
      << v->message;
}

TEST(PlacementConflict, NodeNameWithoutNodeData) {
  // Without nodes the node's labels are unknown: nodeName alone decides nothing.
  EXPECT_FALSE(conflicts(R"("nodeName":"gpu-node-1")"));
  // But a term that names other nodes can never hold for this one.
  const std::string fields =
      R"({"matchFields":[{"key":"metadata.name","operator":"In","values":["gpu-node-2"]}]})";
  const Decision d =
      decideSpec(R"("nodeName":"gpu-node-1",)" + affinity(fields), policyWithPresent());
  const Violation* v = placementViolation(d);
  ASSERT_NE(v, nullptr);
  EXPECT_NE(v->message.find("spec.nodeName gpu-node-1 and node affinity term 1 metadata.name In "
                            "[gpu-node-2]"),
            std::string::npos)
      << v->message;
  EXPECT_FALSE(conflicts(R"("nodeName":"gpu-node-2",)" + affinity(fields)));
}

TEST(PlacementConflict, AnyPoolOfTheClassIsEnough) {
  auto p = policyWithPresent();
  policy::Pool second = p.pools[0];
  second.name = "train-a100";
  second.nodeSelector = {{"gpu-admission.io/pool", "train-a100"}};
  p.pools.push_back(second);
  p.classes[0].pools = {"train-h100", "train-a100"};
  EXPECT_FALSE(conflicts(affinity(term(expr("nvidia.com/gpu.present", "In", R"("false")"))), p));
  const Decision d = decideSpec(R"("nodeSelector":{"gpu-admission.io/pool":"dev"})", p);
  const Violation* v = placementViolation(d);
  ASSERT_NE(v, nullptr);
  EXPECT_NE(v->message.find("(and so do the class's other pools)"), std::string::npos);
}

TEST(PlacementConflict, UnreadableSelectionIsNeverReported) {
  EXPECT_FALSE(conflicts(affinity(term(expr("gpu-admission.io/pool", "Near", R"("dev")")))));
  EXPECT_FALSE(conflicts(R"("nodeSelector":{"gpu-admission.io/pool":7})"));
  EXPECT_FALSE(conflicts(affinity("{}")));  // an empty term: the mutation fills it
}

TEST(PlacementConflict, WarnModeAdmitsAndKeepsThePodsOwnPlacement) {
  const std::string spec = affinity(term(expr("nvidia.com/gpu.present", "In", R"("false")")));
  const Applied run =
      decideAndApply(gpuPod(kTraining, kOneGpu, spec), policyWithPresent(policy::Mode::Warn));
  ASSERT_TRUE(run.decision.allowed());
  ASSERT_NE(placementViolation(run.decision), nullptr);
  // Not ANDed: that would leave a term no node satisfies. The rest of the mutation stands.
  EXPECT_EQ(at(run.patched,
               "/spec/affinity/nodeAffinity/requiredDuringSchedulingIgnoredDuringExecution/"
               "nodeSelectorTerms"),
            "[" + term(expr("nvidia.com/gpu.present", "In", R"("false")")) + "]");
  EXPECT_EQ(at(run.patched, "/spec/priorityClassName"), R"("gpu-training")");
  for (const auto& c : run.decision.changes) EXPECT_EQ(c.find("node affinity"), std::string::npos);
}

TEST(PlacementConflict, PodTemplatesToo) {
  auto p = policyWithPresent();
  const std::string deployment =
      R"({"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web"},"spec":{"template":)"
      R"({"metadata":{"labels":{"gpu-admission.io/class":"training"}},"spec":{)"
      R"("nodeSelector":{"nvidia.com/gpu.present":"false"},)"
      R"("containers":[{"name":"c","image":"i","resources":{"limits":{"nvidia.com/gpu":1}}}]}}}})";
  rapidjson::Document doc = parse(deployment);
  RequestContext ctx = podContext();
  ctx.group = "apps";
  ctx.kind = "Deployment";
  const Decision d = decide(doc, ctx, p, emptyUsage());
  const Violation* v = placementViolation(d);
  ASSERT_NE(v, nullptr);
  EXPECT_NE(v->message.find("the pod template's nvidia.com/gpu.present requirement"),
            std::string::npos);
}

TEST(PlacementConflict, CpuPodsAndValidateOnlyPodsAreNotNarrowed) {
  // A pod of the CPU batch class gets no pool affinity, so nothing can conflict.
  rapidjson::Document pod = parse(gpuPod(R"({"gpu-admission.io/class":"batch"})", "{}",
                                         R"("nodeSelector":{"gpu-admission.io/pool":"dev"})"));
  const Decision d = decide(pod, podContext(), makePolicy(), emptyUsage());
  EXPECT_EQ(placementViolation(d), nullptr);
}

// `NotIn [""]` beside `Exists`: a nodeSelector setting the label to "" can never land on the
// pool, one with any other value can.
TEST(PlacementConflict, EmptyLabelValueAgainstPoolNotInEmpty) {
  auto p = makePolicy();
  p.pools[0].matchExpressions = {{"example.com/tier", policy::NodeOperator::Exists, {}},
                                 {"example.com/tier", policy::NodeOperator::NotIn, {""}}};
  EXPECT_TRUE(conflicts(R"("nodeSelector":{"example.com/tier":""})", p));
  EXPECT_FALSE(conflicts(R"("nodeSelector":{"example.com/tier":"gold"})", p));
  EXPECT_TRUE(conflicts(affinity(term(expr("example.com/tier", "In", R"("")"))), p));
}

// Offload mode (serve --native-offload): a compiled rule's finding is the apiserver's (the
// bound-node form, which reads the node, stays: CapacityCheck.NodeNamePlacementWithNodeData).
TEST(PlacementConflict, OffloadedRulesAreLeftOut) {
  auto p = policyWithPresent();
  const std::string conflicting =
      affinity(term(expr("nvidia.com/gpu.present", "In", R"("false")")));
  ASSERT_NE(placementViolation(decideSpec(conflicting, p)), nullptr);
  p.offloadedRules = {"placement-conflict"};
  const Decision offloaded = decideSpec(conflicting, p);
  EXPECT_EQ(placementViolation(offloaded), nullptr);
  EXPECT_TRUE(offloaded.allowed());
}

}  // namespace
}  // namespace gpua::engine
