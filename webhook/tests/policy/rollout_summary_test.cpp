#include "policy/rollout_summary.hpp"

#include <gtest/gtest.h>

#include "policy_test_support.hpp"

namespace gpua::policy {
namespace {

using testing::allErrors;
using testing::doc;
using testing::load;

const char* const kPools =
    "  pools: [{name: p, gpu: H100-80GB}]\n"
    "  classes: [{name: c, match: {any: [{labels: {a: b}}]}, pools: [p]}]\n";

TEST(RolloutSummary, ExemptNamesOrLabelsAreSaidAsAlternatives) {
  const auto r = load(doc(std::string(kPools) +
                          "  exempt: {namespaces: {names: [kube-system], matchLabels: {exempt: "
                          "\"yes\"}}}\n"
                          "  rollout: [{namespaces: [legacy], mode: audit}]\n"));
  ASSERT_TRUE(r.ok()) << allErrors(r);
  const auto lines = describeRollout(*r.policy);
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(lines[0], "namespaces kube-system, or namespaces with labels exempt=yes: exempt");
  EXPECT_EQ(lines[1], "namespaces legacy: audit");
  EXPECT_EQ(lines[2], "every other namespace: enforce");
}

// A policy file cut short loses its trailing rollout block and still parses: every namespace
// then went to enforce on the next poll.
TEST(RolloutSummary, LosingTheWholeRolloutSectionIsSuspectAWrittenChangeIsNot) {
  const auto soft =
      load(doc(std::string(kPools) + "  rollout: [{namespaces: [legacy], mode: warn}]\n"));
  const auto cut = load(doc(kPools));
  const auto emptied = load(doc(std::string(kPools) + "  rollout: []\n"));
  const auto strict = load(doc(std::string(kPools) + "  rollout: [{mode: enforce}]\n"));
  for (const auto* r : {&soft, &cut, &emptied, &strict}) ASSERT_TRUE(r->ok()) << allErrors(*r);
  EXPECT_NE(suspectRolloutLoss(*soft.policy, *cut.policy).find("no rollout section"),
            std::string::npos);
  EXPECT_EQ(suspectRolloutLoss(*soft.policy, *emptied.policy), "");
  EXPECT_EQ(suspectRolloutLoss(*soft.policy, *strict.policy), "");
  EXPECT_EQ(suspectRolloutLoss(*strict.policy, *cut.policy), "") << "nothing was softer before";
  EXPECT_EQ(suspectRolloutLoss(*cut.policy, *soft.policy), "");
}

TEST(RolloutSummary, RolloutSelectorsStillNeedNameAndLabels) {
  const auto r = load(doc(std::string(kPools) +
                          "  rollout:\n"
                          "  - {namespaces: {names: [a], matchLabels: {env: dev}}, mode: warn}\n"
                          "  - {mode: audit}\n"));
  ASSERT_TRUE(r.ok()) << allErrors(r);
  const auto lines = describeRollout(*r.policy);
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[0], "namespaces a with labels env=dev: warn");
  EXPECT_EQ(lines[1], "every other namespace: audit");
}

}  // namespace
}  // namespace gpua::policy
