// What a case says about the cluster: no usage is an empty cluster, unavailable usage carries
// its reason, files are read by the SnapshotReader and inline figures are added on top.
#include "authoring/test_case.hpp"

#include <gtest/gtest.h>

#include "authoring_test_support.hpp"

namespace gpua::authoring {
namespace {

using testing::FakeSnapshotReader;
using testing::testPolicy;

TEST(TestCaseUsage, NoUsageIsAnEmptyAvailableCluster) {
  const auto policy = testPolicy();
  FakeSnapshotReader files;
  const auto u = caseUsage(TestCase{}, *policy, files);
  EXPECT_TRUE(u.available);
  EXPECT_TRUE(u.namespaces.empty());
  EXPECT_TRUE(files.usageCalls.empty());
}

TEST(TestCaseUsage, UnavailableUsageCarriesTheReason) {
  const auto policy = testPolicy();
  FakeSnapshotReader files;
  TestCase c;
  c.usage.given = true;
  c.usage.available = false;
  EXPECT_EQ(caseUsage(c, *policy, files).unavailableReason, "usage unavailable (test case)");
  c.usage.reason = "API unreachable";
  const auto u = caseUsage(c, *policy, files);
  EXPECT_FALSE(u.available);
  EXPECT_EQ(u.unavailableReason, "API unreachable");
}

TEST(TestCaseUsage, InlineFiguresAddToTheFilesUsage) {
  const auto policy = testPolicy();
  FakeSnapshotReader files;
  files.usageToReturn.namespaces["team-a"].gpuEquivalents = 2;
  files.usageToReturn.namespaces["team-a"].byClass["training"] = 2;
  TestCase c;
  c.usage.given = true;
  c.usage.podsFiles = {"usage/pods.json"};
  c.usage.namespaces["team-a"].gpuEquivalents = 1.5;
  c.usage.namespaces["team-a"].byClass["training"] = 1;
  c.usage.namespaces["team-a"].byResource["nvidia.com/gpu"] = 1;
  const auto u = caseUsage(c, *policy, files);
  ASSERT_EQ(files.usageCalls.size(), 1u);
  EXPECT_EQ(files.usageCalls[0], std::vector<std::string>{"usage/pods.json"});
  const auto& ns = u.namespaces.at("team-a");
  EXPECT_DOUBLE_EQ(ns.gpuEquivalents, 3.5);
  EXPECT_DOUBLE_EQ(ns.byClass.at("training"), 3);
  EXPECT_EQ(ns.byResource.at("nvidia.com/gpu"), 1);
}

TEST(TestCaseSupply, NodesAreReadWithTheUsagePodsAsQueue) {
  const auto policy = testPolicy();
  FakeSnapshotReader files;
  TestCase c;
  EXPECT_FALSE(caseSupply(c, *policy, files).available);
  EXPECT_TRUE(files.supplyCalls.empty());
  c.nodesFiles = {"nodes.json"};
  c.usage.podsFiles = {"pods.json"};
  caseSupply(c, *policy, files);
  ASSERT_EQ(files.supplyCalls.size(), 1u);
  EXPECT_EQ(files.supplyCalls[0].first, std::vector<std::string>{"nodes.json"});
  EXPECT_EQ(files.supplyCalls[0].second, std::vector<std::string>{"pods.json"});
}

}  // namespace
}  // namespace gpua::authoring
