// Required node affinity: ANDed into every existing term, parents created whole, idempotent.
#include <gtest/gtest.h>

#include "test_support.hpp"

namespace gpua::engine {
namespace {

using namespace testing;

const std::string kTrainExprs =
    R"({"key":"gpu-admission.io/pool","operator":"In","values":["train"]},)"
    R"({"key":"nvidia.com/gpu.product","operator":"In","values":["NVIDIA-H100-80GB-HBM3"]})";
const char* kTerms =
    "/spec/affinity/nodeAffinity/requiredDuringSchedulingIgnoredDuringExecution/nodeSelectorTerms";

TEST(MutateAffinity, CreatesWholeAffinityWhenAbsent) {
  const Applied run = decideAndApply(gpuPod(kTraining, kOneGpu), makePolicy());
  ASSERT_TRUE(run.decision.allowed());
  EXPECT_EQ(at(run.patched, kTerms), "[{\"matchExpressions\":[" + kTrainExprs + "]}]");
  EXPECT_EQ(run.decision.patch[0].path, "/spec/affinity");
  EXPECT_EQ(run.decision.changes[0], "node affinity pool train-h100");
}

TEST(MutateAffinity, CreatesMissingLevels) {
  for (
      const std::string affinity :
      {R"("affinity":{})", R"("affinity":{"nodeAffinity":{}})",
       R"("affinity":{"nodeAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":{}}})",
       R"("affinity":{"nodeAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":{"nodeSelectorTerms":[]}}})",
       R"("affinity":{"podAntiAffinity":{"x":1},"nodeAffinity":{"preferredDuringSchedulingIgnoredDuringExecution":[]}})"}) {
    SCOPED_TRACE(affinity);
    const Applied run = decideAndApply(gpuPod(kTraining, kOneGpu, affinity), makePolicy());
    EXPECT_EQ(at(run.patched, kTerms), "[{\"matchExpressions\":[" + kTrainExprs + "]}]");
  }
  const Applied kept = decideAndApply(
      gpuPod(kTraining, kOneGpu, R"("affinity":{"podAntiAffinity":{"x":1}})"), makePolicy());
  EXPECT_EQ(at(kept.patched, "/spec/affinity/podAntiAffinity"), R"({"x":1})");
}

TEST(MutateAffinity, AndsIntoEveryExistingTermNeverAppends) {
  const std::string affinity =
      R"("affinity":{"nodeAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":{"nodeSelectorTerms":[)"
      R"({"matchExpressions":[{"key":"zone","operator":"In","values":["a"]}]},)"
      R"({"matchFields":[{"key":"metadata.name","operator":"In","values":["n1"]}]}]}}})";
  const Applied run = decideAndApply(gpuPod(kTraining, kOneGpu, affinity), makePolicy());
  EXPECT_EQ(
      at(run.patched, kTerms),
      R"([{"matchExpressions":[{"key":"zone","operator":"In","values":["a"]},)" + kTrainExprs +
          R"(]},{"matchFields":[{"key":"metadata.name","operator":"In","values":["n1"]}],"matchExpressions":[)" +
          kTrainExprs + "]}]");
  EXPECT_EQ(run.decision.patch[0].kind, PatchOp::Kind::Replace);
}

TEST(MutateAffinity, SeveralPoolsMakeOneTermPerPool) {
  auto p = makePolicy();
  policy::Pool second = p.pools[0];
  second.name = "train-a100";
  second.nodeSelector = {{"gpu-admission.io/pool", "train-a100"}};
  p.pools.push_back(second);
  p.classes[0].pools = {"train-h100", "train-a100"};
  const std::string affinity =
      R"("affinity":{"nodeAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":{"nodeSelectorTerms":[)"
      R"({"matchExpressions":[{"key":"zone","operator":"In","values":["a"]}]}]}}})";
  const Applied run = decideAndApply(gpuPod(kTraining, kOneGpu, affinity), p);
  const std::string zone = R"({"key":"zone","operator":"In","values":["a"]})";
  EXPECT_EQ(at(run.patched, kTerms),
            "[{\"matchExpressions\":[" + zone + "," + kTrainExprs + "]},{\"matchExpressions\":[" +
                zone +
                R"(,{"key":"gpu-admission.io/pool","operator":"In","values":["train-a100"]}]}])");
  EXPECT_EQ(run.decision.changes[0], "node affinity pool train-h100/train-a100");
}

TEST(MutateAffinity, TermAlreadyNarrowedIsLeftAlone) {
  const std::string affinity =
      R"("affinity":{"nodeAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":{"nodeSelectorTerms":[)"
      R"({"matchExpressions":[)" +
      kTrainExprs + "]}]}}}";
  const Applied run = decideAndApply(gpuPod(kTraining, kOneGpu, affinity), makePolicy());
  for (const auto& op : run.decision.patch)
    EXPECT_EQ(op.path.find("/spec/affinity"), std::string::npos);
}

TEST(MutateAffinity, NodeSelectorIsUntouched) {
  const Applied run = decideAndApply(
      gpuPod(kTraining, kOneGpu, R"("nodeSelector":{"disktype":"ssd"})"), makePolicy());
  EXPECT_EQ(at(run.patched, "/spec/nodeSelector"), R"({"disktype":"ssd"})");
  for (const auto& op : run.decision.patch) EXPECT_NE(op.path, "/spec/nodeSelector");
}

TEST(MutateAffinity, PoolWithoutNodeSelectorAddsNothing) {
  auto p = makePolicy();
  p.pools[0].nodeSelector.clear();
  const Applied run = decideAndApply(gpuPod(kTraining, kOneGpu), p);
  for (const auto& op : run.decision.patch) EXPECT_NE(op.path, "/spec/affinity");
}

// An empty label value is a value: `In [""]` and `NotIn [""]` go into the pod as written (an
// empty values list would be refused by the apiserver), and the second pass finds them.
TEST(MutateAffinity, EmptyLabelValuesAreWrittenAsWritten) {
  auto p = makePolicy();
  p.pools[0].nodeSelector.clear();
  p.pools[0].matchExpressions = {
      {"node-role.kubernetes.io/gpu-worker", policy::NodeOperator::In, {""}},
      {"example.com/tier", policy::NodeOperator::Exists, {}},
      {"example.com/tier", policy::NodeOperator::NotIn, {""}}};
  const Applied run = decideAndApply(gpuPod(kTraining, kOneGpu), p);
  ASSERT_TRUE(run.decision.allowed());
  EXPECT_EQ(
      at(run.patched, kTerms),
      R"([{"matchExpressions":[{"key":"node-role.kubernetes.io/gpu-worker","operator":"In","values":[""]},)"
      R"({"key":"example.com/tier","operator":"Exists"},)"
      R"({"key":"example.com/tier","operator":"NotIn","values":[""]}]}])");
}

// What the pod already selects is not written again: spec.nodeSelector (ANDed with every term
// by the scheduler) and the term's own requirements count when they imply the pool's, so a
// `k: v` label implies `k Exists` and `k NotIn [""]`. Require mode demands exactly the rest.
TEST(MutateAffinity, NodeSelectorHoldingThePoolLabelsPlacesThePod) {
  const Applied run = decideAndApply(
      gpuPod(
          kTraining, kOneGpu,
          R"("nodeSelector":{"gpu-admission.io/pool":"train","nvidia.com/gpu.product":"NVIDIA-H100-80GB-HBM3"})"),
      makePolicy());
  ASSERT_TRUE(run.decision.allowed());
  for (const auto& op : run.decision.patch)
    EXPECT_EQ(op.path.find("/spec/affinity"), std::string::npos) << op.path;
}

TEST(MutateAffinity, OnlyTheRequirementsTheNodeSelectorDoesNotImplyAreWritten) {
  auto p = makePolicy();
  p.pools[0].matchExpressions = {{"example.com/draining", policy::NodeOperator::DoesNotExist, {}},
                                 {"example.com/tier", policy::NodeOperator::Exists, {}},
                                 {"example.com/tier", policy::NodeOperator::NotIn, {""}}};
  const Applied run = decideAndApply(
      gpuPod(
          kTraining, kOneGpu,
          R"("nodeSelector":{"gpu-admission.io/pool":"train","nvidia.com/gpu.product":"NVIDIA-H100-80GB-HBM3","example.com/tier":"gold"})"),
      p);
  ASSERT_TRUE(run.decision.allowed());
  EXPECT_EQ(at(run.patched, kTerms),
            R"([{"matchExpressions":[{"key":"example.com/draining","operator":"DoesNotExist"}]}])");
}

TEST(MutateAffinity, ATermRequirementThatImpliesThePoolsIsEnough) {
  auto p = makePolicy();
  p.pools[0].nodeSelector.clear();
  p.pools[0].matchExpressions = {{"example.com/tier", policy::NodeOperator::Exists, {}},
                                 {"example.com/tier", policy::NodeOperator::NotIn, {""}},
                                 {"example.com/zone", policy::NodeOperator::In, {"a", "b"}}};
  const auto withTerm = [](const std::string& exprs) {
    return R"("affinity":{"nodeAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":{"nodeSelectorTerms":[{"matchExpressions":[)" +
           exprs + "]}]}}}";
  };
  const std::string implying =
      R"({"key":"example.com/tier","operator":"In","values":["gold","silver"]},)"
      R"({"key":"example.com/zone","operator":"In","values":["b"]})";
  const Applied kept = decideAndApply(gpuPod(kTraining, kOneGpu, withTerm(implying)), p);
  for (const auto& op : kept.decision.patch)
    EXPECT_EQ(op.path.find("/spec/affinity"), std::string::npos) << op.path;
  // A zone outside the pool's does not imply it: the pool's zone requirement is ANDed in.
  const std::string wider = R"({"key":"example.com/tier","operator":"In","values":["gold"]},)"
                            R"({"key":"example.com/zone","operator":"In","values":["b","c"]})";
  const Applied narrowed = decideAndApply(gpuPod(kTraining, kOneGpu, withTerm(wider)), p);
  EXPECT_EQ(at(narrowed.patched, kTerms),
            "[{\"matchExpressions\":[" + wider +
                R"(,{"key":"example.com/zone","operator":"In","values":["a","b"]}]}])");
}

TEST(AffinityOperators, PoolExpressionsAreWrittenWithTheirOperators) {
  const auto d = decideAndApply(gpuPod(kTraining, kOneGpu), withCountPool());
  ASSERT_TRUE(d.decision.allowed());
  EXPECT_EQ(
      at(d.patched,
         "/spec/affinity/nodeAffinity/requiredDuringSchedulingIgnoredDuringExecution/"
         "nodeSelectorTerms"),
      R"([{"matchExpressions":[)"
      R"({"key":"gpu-admission.io/pool","operator":"In","values":["train"]},)"
      R"({"key":"nvidia.com/gpu.product","operator":"In","values":["NVIDIA-H100-80GB-HBM3"]},)"
      R"({"key":"nvidia.com/gpu.count","operator":"Gt","values":["4"]},)"
      R"({"key":"example.com/retiring","operator":"DoesNotExist"}]}])");
}

}  // namespace
}  // namespace gpua::engine
