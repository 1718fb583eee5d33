// Which classes the compiled placement-conflict judges and what its CEL holds; whether the
// apiserver's verdicts and words equal the webhook's is the live suite's
// (TestLive/NativeBackstop: the differential and PolicyFixturesAgainstNative).
#include "native/placement_conflict_cel.hpp"

#include <gtest/gtest.h>

#include "native/mutations_cel.hpp"
#include "native/rules_cel.hpp"
#include "native_test_support.hpp"

namespace gpua::native {
namespace {

using testing::load;

policy::PolicySet policyWith(const std::string& pools, const std::string& classExtra = "") {
  return load(R"(apiVersion: gpu-admission.io/v1
kind: GpuPolicy
metadata: {name: t}
spec:
  pools:
  - {name: h100, gpu: H100-80GB, nodeSelector: {pool: h100}}
  - {name: a100, gpu: A100-80GB, matchExpressions: [{key: gpu.count, operator: Gt, values: ["4"]}]}
  - {name: anywhere, gpu: L4}
  classes:
  - name: training
    match: {any: [{labels: {c: training}}]}
    pools: )" +
              pools + "\n" + classExtra);
}

TEST(PlacementConflictCel, APoolsRequirementsAreConstantsInTheEnginesWords) {
  const auto p = policyWith("[h100, a100]");
  const std::string list = placementConflictViolations(p, p.classes[0]);
  ASSERT_FALSE(list.empty());
  EXPECT_NE(list.find(R"([["l:pool", "In", "pool In [h100]"], ["h100"]])"), std::string::npos);
  EXPECT_NE(list.find(R"([["l:gpu.count", "Gt", "gpu.count Gt [4]"], ["4"]])"), std::string::npos);
  // The finding names the first pool; the others are counted.
  EXPECT_NE(list.find("contradicts pool h100 of class training, which requires "),
            std::string::npos);
  EXPECT_NE(list.find(" (and so do the class's other pools)"), std::string::npos);
  EXPECT_NE(list.find("variables.skip != \"validateOnly\""), std::string::npos);
}

TEST(PlacementConflictCel, OnePoolSaysNothingOfOtherPools) {
  const auto p = policyWith("[h100]");
  const std::string list = placementConflictViolations(p, p.classes[0]);
  EXPECT_EQ(list.find("other pools"), std::string::npos);
}

TEST(PlacementConflictCel, PoolsThatSelectNoNodesCannotConflict) {
  const auto p = policyWith("[anywhere]");
  EXPECT_EQ(placementConflictTest(p, p.classes[0]), "");
  EXPECT_EQ(placementConflictViolations(p, p.classes[0]), "");
}

TEST(PlacementConflictCel, PlacementByNodeSelectorIsNodeSelectorConflictsRule) {
  const auto p = policyWith("[h100]", "    placement: {via: nodeSelector}\n");
  EXPECT_EQ(placementConflictTest(p, p.classes[0]), "");
}

TEST(PlacementConflictCel, IntegersAreParsedOnlyWhereGoWouldParseThem) {
  const auto p = policyWith("[a100]");
  const std::string test = placementConflictTest(p, p.classes[0]);
  // int() fails on what strconv.ParseInt refuses; every int() is behind the guard.
  EXPECT_NE(test.find("9223372036854775807"), std::string::npos);
  EXPECT_NE(test.find("matches('^[+-]?[0-9]+$')"), std::string::npos);
}

TEST(PlacementConflictCel, TheRuleFollowsTheClassRulesAndThePlacementMutationWaitsForIt) {
  const auto p = policyWith("[h100]", "    gpus: {maxPerPod: 8}\n");
  const std::string list = violationList(p);
  EXPECT_LT(list.find("allows at most 8 per pod"), list.find("contradicts pool h100"));
  std::string placement;
  for (const auto& m : compiledMutations(p))
    if (m.name == "placement") placement = m.patch;
  ASSERT_FALSE(placement.empty());
  // The pools are ANDed in only when the pod does not contradict them all.
  EXPECT_NE(placement.find(placementConflictTest(p, p.classes[0]) + " ? [] : "), std::string::npos);
}

}  // namespace
}  // namespace gpua::native
