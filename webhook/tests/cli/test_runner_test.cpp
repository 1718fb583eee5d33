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

// A case file is read like a policy: file:line:col, the key path, and the key meant.
TEST_F(TestRunnerTest, TypoInACaseFileIsAFailureNamingTheKey) {
  dir_.write("policy-tests/cases.yaml", R"(cases:
- name: typo
  pod: {apiVersion: v1, kind: Pod, metadata: {name: x}, spec: {containers: []}}
  expect: {alowed: true}
)");
  const auto r = runCli({"test", "policy-tests"}, dir_.path());
  EXPECT_EQ(r.exitCode, 1);
  EXPECT_NE(r.out.find("FAIL policy-tests/cases.yaml:4:12: cases[0].expect.alowed: unknown key "
                       "'alowed' (hint: did you mean 'allowed'?)"),
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

// A case without `namespace:` reviews the object in its own metadata.namespace, as
// `review` does, and namespace labels apply to that namespace. An explicit namespace that
// disagrees is still refused, naming the case key (test has no --namespace flag).
TEST_F(TestRunnerTest, CaseNamespaceDefaultsToTheObjectsNamespace) {
  dir_.write("policy-tests/pods/worker.json", kKubeflowWorkerPod);  // metadata.namespace team-a
  dir_.write("policy-tests/cases.yaml", R"(cases:
- name: object namespace
  podFile: pods/worker.json
  namespaceLabels: {env: dev}
  expect: {allowed: true, class: training, mode: warn}
- name: disagreeing namespace
  namespace: team-b
  podFile: pods/worker.json
  expect: {allowed: true}
)");
  const auto r = runCli({"test", "policy-tests"}, dir_.path());
  EXPECT_EQ(r.exitCode, 1) << r.out << r.err;
  EXPECT_EQ(r.out.find("object namespace"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("FAIL policy-tests/cases.yaml:disagreeing namespace: cannot review: "
                       "metadata.namespace \"team-a\" does not match the case's namespace "
                       "\"team-b\""),
            std::string::npos)
      << r.out;
  EXPECT_EQ(r.out.find("--namespace"), std::string::npos) << r.out;
  EXPECT_EQ(lastLine(r.out), "1 passed, 1 failed");
}

// A fixture file that is not there fails the case that names it, with the place and key that
// name it; the file's other cases still run and count.
TEST_F(TestRunnerTest, AMissingFixtureFailsThatCaseOnly) {
  dir_.write("policy-tests/pods/worker.json", kKubeflowWorkerPod);
  dir_.write("policy-tests/cases.yaml", R"(cases:
- name: runs
  podFile: pods/worker.json
  expect: {allowed: true, class: training}
- name: no pod
  podFile: pods/gone.json
  expect: {allowed: true}
- name: no usage
  usage: {podsFile: usage/gone.json}
  podFile: pods/worker.json
  expect: {allowed: true}
- name: runs too
  podFile: pods/worker.json
  expect: {class: training}
- name: usage that does not parse
  usage: {podsFile: usage/bad.json}
  podFile: pods/worker.json
  expect: {allowed: true}
)");
  dir_.write("policy-tests/usage/bad.json", "{");
  const auto r = runCli({"test", "policy-tests", "-v"}, dir_.path());
  EXPECT_EQ(r.exitCode, 1) << r.out << r.err;
  const std::string hint = " (hint: paths are relative to the case file's directory)";
  EXPECT_NE(r.out.find("FAIL policy-tests/cases.yaml:no pod: policy-tests/cases.yaml:6:12: "
                       "cases[1].podFile: file not found: policy-tests/pods/gone.json" +
                       hint + "\n"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("FAIL policy-tests/cases.yaml:no usage: policy-tests/cases.yaml:9:21: "
                       "cases[2].usage.podsFile: file not found: policy-tests/usage/gone.json" +
                       hint + "\n"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("ok   policy-tests/cases.yaml:runs too\n"), std::string::npos) << r.out;
  // One that is there but does not parse names the key too, and the file's own place in it.
  EXPECT_NE(r.out.find("FAIL policy-tests/cases.yaml:usage that does not parse: usage.podsFile: "
                       "policy-tests/usage/bad.json: invalid JSON"),
            std::string::npos)
      << r.out;
  EXPECT_EQ(lastLine(r.out), "2 passed, 3 failed");
}

// `notPatched`: the patched object must not hold the value at the pointer; a pointer that is
// missing, or holds another value, passes.
TEST_F(TestRunnerTest, NotPatchedFailsWhenThePatchedObjectHoldsTheValue) {
  dir_.write("policy-tests/pods/worker.json", kKubeflowWorkerPod);
  dir_.write("policy-tests/cases.yaml", R"(defaults: {namespace: team-a}
cases:
- name: other values and missing pointers pass
  podFile: pods/worker.json
  expect:
    notPatched:
      /spec/priorityClassName: gpu-inference
      /spec/priority: 0
      /spec/tolerations: [{key: nvidia.com/gpu, operator: Exists}]
- name: the value is there
  podFile: pods/worker.json
  expect:
    notPatched:
      /spec/priorityClassName: gpu-training
      /spec/tolerations/0/key: nvidia.com/gpu
)");
  const auto r = runCli({"test", "policy-tests"}, dir_.path());
  EXPECT_EQ(r.exitCode, 1) << r.out << r.err;
  EXPECT_NE(r.out.find("FAIL policy-tests/cases.yaml:the value is there: /spec/priorityClassName: "
                       "expected anything but \"gpu-training\", got it\n"
                       "FAIL policy-tests/cases.yaml:the value is there: /spec/tolerations/0/key: "
                       "expected anything but \"nvidia.com/gpu\", got it\n"),
            std::string::npos)
      << r.out;
  EXPECT_EQ(lastLine(r.out), "1 passed, 1 failed");
}

// When every case file names its own `policies:`, the runner needs no ../policies.
TEST_F(TestRunnerTest, CaseFilesWithTheirOwnPoliciesNeedNoDefaultPolicy) {
  ScratchDir bare;  // no policies/ directory anywhere
  bare.write("suite/own/policy.yaml", kTestPolicy);
  bare.write("suite/pods/worker.json", kKubeflowWorkerPod);
  bare.write("suite/cases.yaml", std::string("policies: own\n") + kCases);
  const auto r = runCli({"test", "suite/cases.yaml"}, bare.path());
  EXPECT_EQ(r.exitCode, 1) << r.out << r.err;  // kCases has one failing case
  EXPECT_EQ(lastLine(r.out), "1 passed, 1 failed") << r.err;
  // A file without its own policies still needs the default one: a usage error.
  bare.write("suite/more.yaml", kCases);
  const auto missing = runCli({"test", "suite"}, bare.path());
  EXPECT_EQ(missing.exitCode, 2) << missing.out << missing.err;
  EXPECT_NE(missing.err.find("policies"), std::string::npos) << missing.err;
}

// Case expectations: exact violations, none, forbidden ones, an exact warning count, and audit
// annotations present or absent, so that an audit- or warn-mode rule can be asserted to pass.
TEST_F(TestRunnerTest, ExactViolationAndWarningExpectations) {
  dir_.write("policy-tests/pods/worker.json", kKubeflowWorkerPod);
  dir_.write("policy-tests/cases.yaml",
             R"(defaults: {namespace: team-a, namespaceLabels: {env: dev}}
cases:
- name: passes
  podFile: pods/worker.json
  expect:
    noViolations: true
    violationsExactly: []
    notViolations: [max-per-pod]
    warningCount: 1
    auditAnnotations: {class: training, violation-rules: null}
- name: breaks max-per-pod
  pod:
    apiVersion: v1
    kind: Pod
    metadata: {name: big, labels: {gpu-admission.io/class: training}}
    spec: {containers: [{name: c, resources: {limits: {nvidia.com/gpu: 9}}}]}
  expect:
    allowed: true
    violationsExactly: [max-per-pod]
    warningCount: 2
    auditAnnotations: {violation-rules: max-per-pod}
- name: wrong expectations
  pod:
    apiVersion: v1
    kind: Pod
    metadata: {name: big, labels: {gpu-admission.io/class: training}}
    spec: {containers: [{name: c, resources: {limits: {nvidia.com/gpu: 9}}}]}
  expect:
    violationsExactly: [quota]
    notViolations: [max-per-pod]
    warningCount: 0
    auditAnnotations: {violation-rules: null, class: inference}
- name: wrongly none
  pod:
    apiVersion: v1
    kind: Pod
    metadata: {name: big, labels: {gpu-admission.io/class: training}}
    spec: {containers: [{name: c, resources: {limits: {nvidia.com/gpu: 9}}}]}
  expect: {noViolations: true}
)");
  const auto r = runCli({"test", "policy-tests"}, dir_.path());
  EXPECT_EQ(r.exitCode, 1) << r.out << r.err;
  const std::string where = "FAIL policy-tests/cases.yaml:wrong expectations: ";
  EXPECT_NE(r.out.find("FAIL policy-tests/cases.yaml:wrongly none: violations: expected none, "
                       "got [\"max-per-pod\"]"),
            std::string::npos)
      << r.out;
  for (const std::string line :
       {"violations: expected exactly [\"quota\"], got [\"max-per-pod\"]",
        "violations: expected no rule \"max-per-pod\", got [\"max-per-pod\"]",
        "warnings: expected 0, got 2",
        "auditAnnotations.violation-rules: expected absent, got \"max-per-pod\"",
        "auditAnnotations.class: expected \"inference\", got \"training\""})
    EXPECT_NE(r.out.find(where + line), std::string::npos) << line << "\n" << r.out;
  EXPECT_EQ(lastLine(r.out), "2 passed, 2 failed");
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

// --against-native needs a cluster: without one, no case runs and the error names what is wrong
// (the kubeconfig, or the apiserver it points at), never a crash or a silent pass.
TEST_F(TestRunnerTest, AgainstNativeWithoutAClusterSaysWhy) {
  dir_.write("policy-tests/pods/worker.json", kKubeflowWorkerPod);
  dir_.write("policy-tests/cases.yaml", kCases);
  const auto missing =
      runCli({"test", "policy-tests", "--against-native", "nowhere.kubeconfig"}, dir_.path());
  EXPECT_NE(missing.exitCode, 0);
  EXPECT_NE(missing.err.find("nowhere.kubeconfig"), std::string::npos) << missing.err;
  EXPECT_EQ(missing.out.find("passed"), std::string::npos) << "no case may run: " << missing.out;

  dir_.write("unreachable.kubeconfig", R"(apiVersion: v1
kind: Config
clusters:
- name: c
  cluster: {server: "https://127.0.0.1:1"}
contexts:
- name: x
  context: {cluster: c, user: u}
current-context: x
users:
- name: u
  user: {token: abc}
)");
  const auto down =
      runCli({"test", "policy-tests", "--against-native", "unreachable.kubeconfig"}, dir_.path());
  EXPECT_NE(down.exitCode, 0);
  EXPECT_NE(down.err.find("https://127.0.0.1:1"), std::string::npos) << down.err;
  EXPECT_EQ(down.out.find("passed"), std::string::npos) << "no case may run: " << down.out;
}

}  // namespace
}  // namespace gpua::cli::test
