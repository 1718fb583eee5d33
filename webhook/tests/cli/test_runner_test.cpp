// `gpu-admission test`: the declarative case runner, its failure lines and summary, case-file
// errors, idempotence detection, and the repository's own policy-tests/.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "cli_harness.hpp"

namespace gpua::cli::test {
namespace {

std::string lastLine(const std::string& out) {
  std::string s = out;
  while (!s.empty() && s.back() == '\n') s.pop_back();
  const auto nl = s.rfind('\n');
  return nl == std::string::npos ? s : s.substr(nl + 1);
}

class TestRunnerTest : public ::testing::Test {
 protected:
  void SetUp() override { dir_.write("policies/policy.yaml", kTestPolicy); }
  ScratchDir dir_;
};

constexpr const char* kCases = R"(cases:
- name: kubeflow worker is training
  namespace: team-a
  podFile: pods/worker.json
  expect:
    allowed: true
    outcome: Classified
    class: training
    patched:
      /spec/priorityClassName: gpu-training
      /spec/containers/0/resources/limits/nvidia.com~1gpu: 1
- name: wrong expectation
  namespace: team-a
  podFile: pods/worker.json
  expect:
    class: inference
)";

TEST_F(TestRunnerTest, OnePassingOneFailingCase) {
  dir_.write("policy-tests/pods/worker.json", kKubeflowWorkerPod);
  dir_.write("policy-tests/cases.yaml", kCases);
  const auto r = runCli({"test", "policy-tests"}, dir_.path());
  EXPECT_EQ(r.exitCode, 1) << r.out << r.err;
  EXPECT_NE(r.out.find("FAIL policy-tests/cases.yaml:wrong expectation: class: expected "
                       "\"inference\", got \"training\""),
            std::string::npos)
      << r.out;
  EXPECT_EQ(lastLine(r.out), "1 passed, 1 failed");
}

TEST_F(TestRunnerTest, AllPassingExitsZero) {
  dir_.write("policy-tests/pods/worker.json", kKubeflowWorkerPod);
  dir_.write("policy-tests/cases.yaml",
             std::string(kCases).substr(0, std::string(kCases).find("- name: wrong")));
  const auto r = runCli({"test", "policy-tests"}, dir_.path());
  EXPECT_EQ(r.exitCode, 0) << r.out << r.err;
  EXPECT_EQ(lastLine(r.out), "1 passed, 0 failed");
}

TEST_F(TestRunnerTest, PatchedFieldMismatchPrintsADiff) {
  dir_.write("policy-tests/pods/worker.json", kKubeflowWorkerPod);
  dir_.write("policy-tests/cases.yaml", R"(cases:
- name: tolerations
  namespace: team-a
  podFile: pods/worker.json
  expect:
    patched:
      /spec/tolerations: [{key: example.com/other, operator: Exists}]
)");
  const auto r = runCli({"test", "policy-tests"}, dir_.path());
  EXPECT_EQ(r.exitCode, 1);
  EXPECT_NE(r.out.find("FAIL policy-tests/cases.yaml:tolerations: /spec/tolerations: expected "),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("    /0/key: expected \"example.com/other\", got \"nvidia.com/gpu\""),
            std::string::npos)
      << r.out;
}

TEST_F(TestRunnerTest, TypoInACaseFileIsAFailureNamingTheKey) {
  dir_.write("policy-tests/cases.yaml", R"(cases:
- name: typo
  pod: {apiVersion: v1, kind: Pod, metadata: {name: x}, spec: {containers: []}}
  expect: {alowed: true}
)");
  const auto r = runCli({"test", "policy-tests"}, dir_.path());
  EXPECT_EQ(r.exitCode, 1);
  EXPECT_NE(r.out.find("FAIL policy-tests/cases.yaml:typo: unknown key \"alowed\" in expect"),
            std::string::npos)
      << r.out;
  EXPECT_EQ(lastLine(r.out), "0 passed, 1 failed");
}

// A policy whose class choice depends on a label the webhook itself adds is not idempotent:
// the second pass picks another class and patches again. The runner must catch it.
TEST_F(TestRunnerTest, NonIdempotentPolicyIsReported) {
  dir_.write("flip/policy.yaml", R"(apiVersion: gpu-admission.io/v1
kind: GpuPolicy
metadata: {name: flip}
spec:
  pools:
  - {name: a, gpu: H100-80GB, nodeSelector: {pool: a}}
  classes:
  - name: second
    match: {any: [{annotationKeys: [gpu-admission.io/class]}]}
    pools: [a]
    priorityClassName: prio-second
    overridePriorityClass: true
  - name: first
    match: {any: [{labels: {gpu-admission.io/class: training}}]}
    pools: [a]
    priorityClassName: prio-first
)");
  dir_.write("policy-tests/cases.yaml", R"(cases:
- name: flips
  namespace: team-a
  pod:
    apiVersion: v1
    kind: Pod
    metadata: {name: p, labels: {gpu-admission.io/class: training}}
    spec:
      containers: [{name: c, image: cuda, resources: {limits: {nvidia.com/gpu: 1}}}]
  expect: {allowed: true, class: first}
)");
  const auto r = runCli({"test", "policy-tests", "--policies", "flip"}, dir_.path());
  EXPECT_EQ(r.exitCode, 1) << r.out << r.err;
  EXPECT_NE(r.out.find("FAIL policy-tests/cases.yaml:flips: idempotence: expected no patch on "
                       "re-run, got "),
            std::string::npos)
      << r.out;
}

TEST_F(TestRunnerTest, PolicyThatDoesNotLoadExitsTwo) {
  dir_.write("broken/policy.yaml", "apiVersion: gpu-admission.io/v1\nkind: GpuPolicy\n");
  dir_.write("policy-tests/cases.yaml", kCases);
  const auto r = runCli({"test", "policy-tests", "--policies", "broken"}, dir_.path());
  EXPECT_EQ(r.exitCode, 2);
  EXPECT_NE(r.err.find("broken/policy.yaml"), std::string::npos) << r.err;
}

// The repository's own suite against the shipped policies: `make policy-test` in ctest form.
TEST(RepoPolicyTests, ShippedPolicyTestsPass) {
  const std::filesystem::path repo = GPUA_REPO_DIR;
  if (!std::filesystem::exists(repo / "policy-tests") ||
      !std::filesystem::exists(repo / "policies"))
    GTEST_SKIP() << "no policy-tests/ or policies/ in " << repo;
  const auto r = runCli({"test", "policy-tests"}, repo);
  EXPECT_EQ(r.exitCode, 0) << r.out << r.err;
  EXPECT_NE(lastLine(r.out).find(" passed, 0 failed"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace gpua::cli::test
