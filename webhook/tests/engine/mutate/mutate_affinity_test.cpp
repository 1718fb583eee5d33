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
