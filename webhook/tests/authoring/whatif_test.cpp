// whatif's logic: every pod of a snapshot reviewed, verdicts and groups, counted per namespace
// and class, and which files the usage and supply come from.
#include "authoring/whatif.hpp"

#include <gtest/gtest.h>

#include "authoring_test_support.hpp"

namespace gpua::authoring {
namespace {

using testing::FakeSnapshotReader;
using testing::json;
using testing::ScratchDir;
using testing::testPolicy;
using testing::trainingPod;

constexpr const char* kPods = R"({"apiVersion": "v1", "kind": "List", "items": [
  {"metadata": {"name": "w-0", "namespace": "team-a",
                "labels": {"training.kubeflow.org/job-name": "w"}},
   "spec": {"containers": [{"name": "c", "resources": {"limits": {"nvidia.com/gpu": 2}}}]}},
  {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "web", "namespace": "team-a"},
   "spec": {"containers": [{"name": "c", "image": "nginx"}]}},
  {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "mystery", "namespace": "team-b"},
   "spec": {"containers": [{"name": "c", "resources": {"limits": {"nvidia.com/gpu": 1}}}]}},
  {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "team-a"}},
  {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "cm", "namespace": "team-c"}}
]})";

class WhatifTest : public ::testing::Test {
 protected:
  std::vector<PodResult> run(WhatifInputs inputs) {
    inputs.podsFile = dir_.write("pods.json", kPods);
    return runWhatif(inputs, *policy_, files_);
  }
  ScratchDir dir_;
  FakeSnapshotReader files_;
  std::shared_ptr<const policy::PolicySet> policy_ = testPolicy();
};

TEST_F(WhatifTest, EveryPodButNamespacesIsReviewed) {
  const auto pods = run({});
  ASSERT_EQ(pods.size(), 4u);
  EXPECT_EQ(pods[0].name, "w-0");  // kind defaulted to Pod
  EXPECT_EQ(pods[0].verdict, Verdict::Mutated);
  EXPECT_EQ(pods[0].group, "training");
  EXPECT_GT(pods[0].patchOps, 0u);
  EXPECT_EQ(pods[1].verdict, Verdict::Unchanged);
  EXPECT_EQ(pods[1].group, "(NoGpu)");
  EXPECT_EQ(pods[2].verdict, Verdict::Denied);
  EXPECT_EQ(pods[2].group, "(Unclassified)");
  EXPECT_FALSE(pods[2].message.empty());
  EXPECT_EQ(pods[3].verdict, Verdict::Error);
  EXPECT_EQ(pods[3].group, "(error)");
  EXPECT_EQ(pods[3].namespaceName, "team-c");
  EXPECT_TRUE(files_.usageCalls.empty());  // no usage files: an empty cluster
  EXPECT_TRUE(files_.supplyCalls.empty());
}

TEST_F(WhatifTest, SummaryCountsPerNamespaceAndGroup) {
  const auto rows = summarize(run({}));
  ASSERT_EQ(rows.size(), 4u);
  const auto& training = rows.at({"team-a", "training"});
  EXPECT_EQ(training.pods, 1);
  EXPECT_EQ(training.mutated, 1);
  EXPECT_EQ(rows.at({"team-b", "(Unclassified)"}).denied, 1);
  EXPECT_EQ(rows.at({"team-a", "(NoGpu)"}).unchanged, 1);
  EXPECT_EQ(rows.at({"team-c", "(error)"}).errors, 1);
}

// Labels of a namespaces file put team-b in warn mode; alone it brings no usage figures.
TEST_F(WhatifTest, NamespacesFileGivesLabelsOnly) {
  files_.usageToReturn.namespaceLabels["team-b"] = {{"env", "dev"}};
  files_.usageToReturn.namespaces["team-a"].gpuEquivalents = 100;
  WhatifInputs inputs;
  inputs.namespacesFile = "ns.json";
  const auto pods = run(inputs);
  ASSERT_EQ(files_.usageCalls.size(), 1u);
  EXPECT_EQ(files_.usageCalls[0], std::vector<std::string>{"ns.json"});
  EXPECT_EQ(pods[0].verdict, Verdict::Mutated);  // the 100 in use were dropped
  EXPECT_NE(pods[2].verdict, Verdict::Denied);
  EXPECT_TRUE(pods[2].brokeRules);
  EXPECT_GT(pods[2].warnings, 0u);
  EXPECT_EQ(summarize(pods).at({"team-b", "(Unclassified)"}).warned, 1);
}

TEST_F(WhatifTest, UsageFilesCountForQuotas) {
  files_.usageToReturn.namespaces["team-a"].gpuEquivalents = 11;
  WhatifInputs inputs;
  inputs.namespacesFile = "ns.json";
  inputs.usageFiles = {"usage.json"};
  const auto pods = run(inputs);
  EXPECT_EQ(files_.usageCalls[0], (std::vector<std::string>{"ns.json", "usage.json"}));
  EXPECT_EQ(pods[0].verdict, Verdict::Denied);
}

TEST_F(WhatifTest, NodesAreReadWithTheSnapshotAsQueue) {
  WhatifInputs inputs;
  inputs.nodesFiles = {"nodes.json"};
  run(inputs);
  ASSERT_EQ(files_.supplyCalls.size(), 1u);
  EXPECT_EQ(files_.supplyCalls[0].first, std::vector<std::string>{"nodes.json"});
  EXPECT_EQ(files_.supplyCalls[0].second,
            std::vector<std::string>{(dir_.path() / "pods.json").string()});
}

TEST(WhatifPodItems, ListsArraysAndNothingElse) {
  EXPECT_EQ(podItems(json(R"({"items": [1, 2]})"), "f").Size(), 2u);
  EXPECT_EQ(podItems(json("[1]"), "f").Size(), 1u);
  try {
    podItems(json(R"({"kind": "Pod"})"), "bad.json");
    FAIL() << "a single object was taken for a list";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()).rfind("bad.json: not a pod list", 0), 0u);
  }
}

TEST(WhatifReviewPod, OnePodAlone) {
  const auto policy = testPolicy();
  const auto r = reviewPod(json(trainingPod(9)), *policy, emptyUsage(), {});
  EXPECT_EQ(r.verdict, Verdict::Denied);
  EXPECT_EQ(r.className, "training");
  EXPECT_EQ(r.outcome, "Classified");
  EXPECT_STREQ(verdictName(r.verdict), "denied");
}

}  // namespace
}  // namespace gpua::authoring
