#include "inventory/quota_usage.hpp"

#include <gtest/gtest.h>

#include "support/cluster_fixtures.hpp"

namespace gpua::inventory {
namespace {

engine::UsageSnapshot usage() {
  engine::UsageSnapshot u;
  u.available = true;
  u.namespaceLabels = {{"vision", {{"team", "vision"}}},
                       {"vision-dev", {{"team", "vision"}}},
                       {"nlp", {{"team", "nlp"}}}};
  u.namespaces["vision"] = {6, {{"training", 5}, {"inference", 1}}, {}};
  u.namespaces["vision-dev"] = {2.5, {{"training", 2.5}}, {}};
  u.namespaces["nlp"] = {4, {{"training", 4}}, {}};
  return u;
}

TEST(QuotaUsage, SharedQuotaSumsItsNamespacesPerScope) {
  const auto policy = testing::loadPolicy(testing::policyYaml());
  const auto f = quotaFigures(*policy, usage(), 1);
  ASSERT_EQ(f.size(), 2u);
  EXPECT_EQ(f[0].quota, "team-vision");
  EXPECT_EQ(f[0].scope, "total");
  EXPECT_DOUBLE_EQ(f[0].used, 8.5);
  EXPECT_EQ(f[0].limit, 16);
  ASSERT_EQ(f[0].topNamespaces.size(), 1u);  // top 1 asked
  EXPECT_EQ(f[0].topNamespaces[0].first, "vision");
  EXPECT_EQ(f[1].scope, "class:training");
  EXPECT_DOUBLE_EQ(f[1].used, 7.5);
  EXPECT_EQ(f[1].limit, 14);
}

TEST(QuotaUsage, PerNamespaceQuotaReportsEachNamespace) {
  auto yaml = testing::policyYaml();
  yaml.replace(yaml.find("    gpuEquivalents: 16"), 22,
               "    scope: perNamespace\n    gpuEquivalents: 4");
  const auto policy = testing::loadPolicy(yaml);
  const auto f = quotaFigures(*policy, usage());
  ASSERT_EQ(f.size(), 4u);
  EXPECT_EQ(f[0].scope, "namespace:vision");
  EXPECT_DOUBLE_EQ(f[0].used, 6);
  EXPECT_EQ(f[0].limit, 4);
  EXPECT_EQ(f[1].scope, "namespace:vision-dev");
  EXPECT_EQ(f[2].scope, "namespace:vision/class:training");
  EXPECT_DOUBLE_EQ(f[2].used, 5);
  EXPECT_EQ(f[3].scope, "namespace:vision-dev/class:training");
}

}  // namespace
}  // namespace gpua::inventory
