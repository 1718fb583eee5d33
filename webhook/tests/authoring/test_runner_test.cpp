// The case runner over files: finding case files, the default policy beside the suite, each
// file's own policy, failures per case and per file, the name filter and the tally.
#include "authoring/test_runner.hpp"

#include <gtest/gtest.h>

#include "authoring/policy_files.hpp"
#include "authoring_test_support.hpp"

namespace gpua::authoring {
namespace {

using testing::FakeSnapshotReader;
using testing::kPolicy;
using testing::ScratchDir;
using testing::trainingPod;

// Records what the runner reports, one line per failure, in order.
class Recorder final : public SuiteObserver {
 public:
  std::vector<std::string> passed, lines;
  void caseDone(const std::string& where, const std::vector<CheckFailure>& failures) override {
    if (failures.empty()) passed.push_back(where);
    for (const auto& f : failures) lines.push_back(where + ": " + f.message);
  }
  void fileFailed(const std::string&, const std::vector<CheckFailure>& problems) override {
    for (const auto& p : problems) lines.push_back(p.message);
  }
};

constexpr const char* kCases = R"(cases:
- name: worker is training
  podFile: pods/worker.json
  expect: {allowed: true, class: training}
- name: wrong class
  podFile: pods/worker.json
  expect: {class: inference}
)";

SuiteOptions suite(std::vector<std::string> paths, std::string filter = "") {
  SuiteOptions options;
  options.paths = std::move(paths);
  options.filter = std::move(filter);
  return options;
}

class TestRunnerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_.write("policies/policy.yaml", kPolicy);
    dir_.write("tests/pods/worker.json", trainingPod());
  }
  SuiteTally run(SuiteOptions options) { return runSuite(options, files_, recorder_); }
  std::string at(const std::string& relative) const { return (dir_.path() / relative).string(); }

  ScratchDir dir_;
  FakeSnapshotReader files_;
  Recorder recorder_;
};

TEST_F(TestRunnerTest, RunsEveryCaseAgainstThePolicyBesideTheSuite) {
  dir_.write("tests/cases.yaml", kCases);
  const auto tally = run(suite({at("tests")}));
  EXPECT_EQ(tally.passed, 1);
  EXPECT_EQ(tally.failed, 1);
  EXPECT_EQ(recorder_.passed,
            std::vector<std::string>{at("tests/cases.yaml") + ":worker is training"});
  EXPECT_EQ(recorder_.lines,
            std::vector<std::string>{at("tests/cases.yaml") + ":wrong class: class: expected "
                                                              "\"inference\", got \"training\""});
}

TEST_F(TestRunnerTest, FilterRunsOnlyMatchingCases) {
  dir_.write("tests/cases.yaml", kCases);
  const auto tally = run(suite({at("tests/cases.yaml")}, "worker"));
  EXPECT_EQ(tally.passed, 1);
  EXPECT_EQ(tally.failed, 0);
}

TEST_F(TestRunnerTest, AFileThatDoesNotParseIsOneFailureAndTheRestRuns) {
  dir_.write("tests/a.yaml", "cases: [}\n");
  dir_.write("tests/b.yaml", kCases);
  const auto tally = run(suite({at("tests")}));
  EXPECT_EQ(tally.passed, 1);
  EXPECT_EQ(tally.failed, 2);
  ASSERT_EQ(recorder_.lines.size(), 2u);
  EXPECT_EQ(recorder_.lines[0].rfind(at("tests/a.yaml") + ":1:", 0), 0u) << recorder_.lines[0];
}

// Every error of a case file is reported, and the file counts once: none of its cases runs.
TEST_F(TestRunnerTest, EveryErrorOfAFileIsReportedAndTheFileCountsOnce) {
  dir_.write("tests/cases.yaml", R"(cases:
- name: fine
  podFile: pods/worker.json
  expect: {allowed: true}
- name: typos
  podFile: pods/worker.json
  expect: {alowed: true, clas: training}
)");
  const auto tally = run(suite({at("tests")}));
  EXPECT_EQ(tally.passed, 0);
  EXPECT_EQ(tally.failed, 1);
  const std::string file = at("tests/cases.yaml");
  EXPECT_EQ(recorder_.lines,
            (std::vector<std::string>{
                file + ":7:12: cases[1].expect.alowed: unknown key 'alowed' (hint: did you mean "
                       "'allowed'?)",
                file + ":7:26: cases[1].expect.clas: unknown key 'clas' (hint: did you mean "
                       "'class'?)"}));
}

// A fixture file a case names that is not there fails that case only, at the key that names it;
// the other cases of the file still run (a case file error would fail them all).
TEST_F(TestRunnerTest, AMissingFixtureFailsThatCaseOnly) {
  dir_.write("tests/cases.yaml", R"(cases:
- name: before
  podFile: pods/worker.json
  expect: {allowed: true}
- name: no pod
  podFile: pods/gone.json
  expect: {allowed: true}
- name: no usage
  usage: {podsFile: [pods/worker.json, usage/gone.json]}
  nodes: nodes/gone.json
  podFile: pods/worker.json
  expect: {allowed: true}
- name: no expected object
  podFile: pods/worker.json
  expect: {patchedPod: expected/gone.yaml}
- name: after
  podFile: pods/worker.json
  expect: {class: training}
)");
  const auto tally = run(suite({at("tests")}));
  EXPECT_EQ(tally.passed, 2);
  EXPECT_EQ(tally.failed, 3);
  EXPECT_EQ(recorder_.passed, (std::vector<std::string>{at("tests/cases.yaml") + ":before",
                                                        at("tests/cases.yaml") + ":after"}));
  const std::string file = at("tests/cases.yaml");
  const std::string hint = " (hint: paths are relative to the case file's directory)";
  EXPECT_EQ(
      recorder_.lines,
      (std::vector<std::string>{
          file + ":no pod: " + file +
              ":6:12: cases[1].podFile: file not found: " + at("tests/pods/gone.json") + hint,
          file + ":no usage: " + file + ":9:40: cases[2].usage.podsFile[1]: file not found: " +
              at("tests/usage/gone.json") + hint,
          file + ":no usage: " + file +
              ":10:10: cases[2].nodes: file not found: " + at("tests/nodes/gone.json") + hint,
          file + ":no expected object: " + file +
              ":15:24: cases[3].expect.patchedPod: file not found: " +
              at("tests/expected/gone.yaml") + hint}));
  EXPECT_TRUE(files_.usageCalls.empty());  // the case with a missing usage file is not reviewed
}

// A missing file named in `defaults` fails the cases that take it, not those that set their own.
TEST_F(TestRunnerTest, AMissingDefaultFixtureFailsTheCasesThatUseIt) {
  dir_.write("tests/cases.yaml", R"(defaults:
  usage: {podsFile: usage/gone.json}
cases:
- name: inherits
  podFile: pods/worker.json
  expect: {allowed: true}
- name: own usage
  usage: {available: false}
  podFile: pods/worker.json
  expect: {allowed: true}
)");
  const auto tally = run(suite({at("tests")}));
  EXPECT_EQ(tally.passed, 1);
  EXPECT_EQ(tally.failed, 1);
  const std::string file = at("tests/cases.yaml");
  EXPECT_EQ(recorder_.lines,
            std::vector<std::string>{
                file + ":inherits: " + file +
                ":2:21: defaults.usage.podsFile: file not found: " + at("tests/usage/gone.json") +
                " (hint: paths are relative to the case file's directory)"});
}

TEST_F(TestRunnerTest, ACaseFilesOwnPolicyThatDoesNotLoadFailsThatFile) {
  dir_.write("tests/broken/policy.yaml", "apiVersion: gpu-admission.io/v1\nkind: GpuPolicy\n");
  dir_.write("tests/a.yaml", std::string("policies: broken\n") + kCases);
  dir_.write("tests/b.yaml", kCases);
  const auto tally = run(suite({at("tests/a.yaml"), at("tests/b.yaml")}));
  EXPECT_EQ(tally.passed, 1);
  EXPECT_EQ(tally.failed, 2);
  ASSERT_FALSE(recorder_.lines.empty());
  EXPECT_EQ(recorder_.lines[0].rfind(
                at("tests/a.yaml") + ": policy " + at("tests/broken") + " does not load: ", 0),
            0u)
      << recorder_.lines[0];
}

TEST_F(TestRunnerTest, TheRunnersOwnPolicyThatDoesNotLoadStopsTheSuite) {
  dir_.write("tests/cases.yaml", kCases);
  dir_.write("bad/policy.yaml", "apiVersion: gpu-admission.io/v1\nkind: GpuPolicy\n");
  SuiteOptions options = suite({at("tests")});
  options.policies = std::vector{at("bad")};
  EXPECT_THROW(run(options), PolicyLoadError);
  EXPECT_TRUE(recorder_.lines.empty());
}

TEST_F(TestRunnerTest, SuitesThatBringTheirPolicyNeedNoDefault) {
  ScratchDir bare;
  bare.write("suite/own/policy.yaml", kPolicy);
  bare.write("suite/pods/worker.json", trainingPod());
  bare.write("suite/cases.yaml", std::string("policies: own\n") + kCases);
  const auto tally = runSuite(suite({(bare.path() / "suite").string()}), files_, recorder_);
  EXPECT_EQ(tally.passed, 1);
  EXPECT_EQ(tally.failed, 1);
}

TEST(CaseFiles, DirectoriesGiveTheirYamlFilesByName) {
  ScratchDir dir;
  dir.write("t/b.yaml", "");
  dir.write("t/a.yml", "");
  dir.write("t/notes.txt", "");
  dir.write("t/sub/c.yaml", "");
  const std::string t = (dir.path() / "t").string();
  EXPECT_EQ(caseFiles({t}), (std::vector<std::string>{t + "/a.yml", t + "/b.yaml"}));
  EXPECT_THROW(caseFiles({t + "/sub/none"}), InputError);
  dir.write("empty/x.txt", "");
  EXPECT_THROW(caseFiles({(dir.path() / "empty").string()}), InputError);
}

TEST(DefaultPolicies, ThePoliciesDirectoryBesideTheSuite) {
  EXPECT_EQ(defaultPolicies("policy-tests"), "policies");
  EXPECT_EQ(defaultPolicies("repo/policy-tests/"), "repo/policies");
  EXPECT_EQ(defaultPolicies("repo/policy-tests/x.yaml"), "repo/policies");
}

}  // namespace
}  // namespace gpua::authoring
