// One case through the round trip and its expectations: every kind of expectation passes when it
// holds and fails with its own message when it does not, and idempotence is checked.
#include "authoring/case_checks.hpp"

#include <gtest/gtest.h>

#include "authoring/review_roundtrip.hpp"
#include "authoring_test_support.hpp"

namespace gpua::authoring {
namespace {

using testing::FakeSnapshotReader;
using testing::json;
using testing::testPolicy;
using testing::trainingPod;

std::shared_ptr<const rapidjson::Value> value(const std::string& text) {
  return std::make_shared<const rapidjson::Document>(json(text));
}

std::vector<std::string> messages(const std::vector<CheckFailure>& failures) {
  std::vector<std::string> out;
  for (const auto& f : failures) out.push_back(f.message);
  return out;
}

class CaseChecksTest : public ::testing::Test {
 protected:
  TestCase caseFor(const std::string& object) {
    TestCase c;
    c.file = "cases.yaml";
    c.name = "a case";
    c.object = value(object);
    return c;
  }
  std::vector<std::string> check(const TestCase& c) {
    return messages(checkCase(c, *policy_, files_));
  }
  std::shared_ptr<const policy::PolicySet> policy_ = testPolicy();
  FakeSnapshotReader files_;
};

TEST_F(CaseChecksTest, MetExpectationsPass) {
  TestCase c = caseFor(trainingPod());
  c.expect.allowed = true;
  c.expect.outcome = "classified";  // outcome and mode compare without case
  c.expect.className = "training";
  c.expect.mode = "Enforce";
  c.expect.warningsContain = {"class training: node affinity"};  // what the mutation did
  c.expect.warningCount = 1;
  c.expect.violationsExactly.emplace();
  c.expect.notViolations = {"max-per-pod"};
  c.expect.patched = {{"/spec/priorityClassName", value(R"("gpu-training")")}};
  c.expect.absent = {"/spec/priority"};
  EXPECT_TRUE(check(c).empty());
}

TEST_F(CaseChecksTest, EachUnmetExpectationIsOneFailure) {
  TestCase c = caseFor(trainingPod());
  c.expect.allowed = false;
  c.expect.className = "inference";
  c.expect.mode = "warn";
  c.expect.noWarnings = true;
  c.expect.violations = {"quota"};
  c.expect.noPatch = true;
  const auto got = check(c);
  ASSERT_EQ(got.size(), 6u) << ::testing::PrintToString(got);
  EXPECT_EQ(got[0], "allowed: expected false, got true");
  EXPECT_EQ(got[1], "class: expected \"inference\", got \"training\"");
  EXPECT_EQ(got[2], "mode: expected warn, got enforce");
  EXPECT_EQ(got[3].rfind("warnings: expected none, got [\"gpu-admission: class training", 0), 0u)
      << got[3];
  EXPECT_EQ(got[4], "violations: expected rule \"quota\", got []");
  EXPECT_EQ(got[5].rfind("patch: expected none, got ", 0), 0u) << got[5];
}

TEST_F(CaseChecksTest, DeniedCaseMessagesAndViolations) {
  TestCase c = caseFor(trainingPod(9));
  c.expect.allowed = true;
  c.expect.messageContains = {"no such text"};
  c.expect.violationsExactly = std::vector<std::string>{};
  const auto got = check(c);
  ASSERT_EQ(got.size(), 3u) << ::testing::PrintToString(got);
  EXPECT_NE(got[0].find("allowed: expected true, got false (denied: "), std::string::npos);
  EXPECT_NE(got[1].find("message: expected to contain \"no such text\""), std::string::npos);
  EXPECT_EQ(got[2], "violations: expected none, got [\"max-per-pod\"]");
}

TEST_F(CaseChecksTest, PatchedValueMismatchCarriesADiff) {
  TestCase c = caseFor(trainingPod());
  c.expect.patched = {{"/spec/tolerations", value(R"([{"key": "other", "operator": "Exists"}])")},
                      {"/spec/nope", value("1")}};
  const auto failures = checkCase(c, *policy_, files_);
  ASSERT_EQ(failures.size(), 2u);
  EXPECT_EQ(failures[0].message.rfind("/spec/tolerations: expected ", 0), 0u);
  ASSERT_FALSE(failures[0].diff.empty());
  EXPECT_EQ(failures[0].diff[0], "/0/key: expected \"other\", got \"nvidia.com/gpu\"");
  EXPECT_EQ(failures[1].message, "/spec/nope: expected 1, missing in the patched object");
}

// `notPatched`: a value the patched object must not hold; another value or no value passes.
TEST_F(CaseChecksTest, NotPatchedValuesMustNotBeThere) {
  TestCase c = caseFor(trainingPod());
  c.expect.notPatched = {{"/spec/priorityClassName", value(R"("gpu-inference")")},
                         {"/spec/priority", value("0")},
                         {"/metadata/labels", value("{}")}};
  EXPECT_TRUE(check(c).empty()) << ::testing::PrintToString(check(c));
  c.expect.notPatched = {
      {"/spec/priorityClassName", value(R"("gpu-training")")},
      {"/metadata/labels", value(R"({"training.kubeflow.org/job-name": "mnist"})")}};
  EXPECT_EQ(check(c), (std::vector<std::string>{
                          "/spec/priorityClassName: expected anything but \"gpu-training\", got it",
                          "/metadata/labels: expected anything but "
                          "{\"training.kubeflow.org/job-name\":\"mnist\"}, got it"}));
  c.expect.notPatched = {{"nope", value("1")}};
  EXPECT_EQ(check(c), std::vector<std::string>{"expect.notPatched: invalid JSON pointer \"nope\""});
}

// A case whose fixture files are missing fails with the parser's errors and is not reviewed.
TEST_F(CaseChecksTest, FixtureErrorsFailTheCaseUnreviewed) {
  TestCase c = caseFor(trainingPod());
  c.usage.given = true;
  c.usage.podsFiles = {"gone.json"};
  c.fixtureErrors = {"cases.yaml:3:4: cases[0].usage.podsFile: file not found: gone.json"};
  EXPECT_EQ(check(c), c.fixtureErrors);
  EXPECT_TRUE(files_.usageCalls.empty());
  c.fixtureErrors.clear();
  c.object = nullptr;
  EXPECT_EQ(check(c), std::vector<std::string>{"no object to review"});
}

TEST_F(CaseChecksTest, InvalidPointersFailBeforeTheReview) {
  TestCase c = caseFor(trainingPod());
  c.expect.absent = {"no-slash"};
  EXPECT_EQ(check(c),
            std::vector<std::string>{"expect.absent/ignore: invalid JSON pointer \"no-slash\""});
}

TEST_F(CaseChecksTest, AuditAnnotationsAndWarningsInWarnMode) {
  TestCase c = caseFor(trainingPod(9));
  c.namespaceLabels = {{"env", "dev"}};
  c.expect.allowed = true;
  c.expect.mode = "warn";
  c.expect.violationsExactly = std::vector<std::string>{"max-per-pod"};
  c.expect.warningsContain = {"allows at most 8 per pod"};
  c.expect.auditAnnotations = {{"violation-rules", "max-per-pod"}, {"nope", std::nullopt}};
  EXPECT_TRUE(check(c).empty()) << ::testing::PrintToString(check(c));
  c.expect.auditAnnotations = {{"violation-rules", std::nullopt}, {"nope", "x"}};
  c.expect.warningCount = 0;
  const auto got = check(c);
  ASSERT_EQ(got.size(), 3u) << ::testing::PrintToString(got);
  EXPECT_EQ(got[0].rfind("warnings: expected 0, got 2 ", 0), 0u) << got[0];
  EXPECT_EQ(got[1], "auditAnnotations.violation-rules: expected absent, got \"max-per-pod\"");
  EXPECT_EQ(got[2], "auditAnnotations.nope: expected \"x\", got none");
}

TEST_F(CaseChecksTest, ObjectThatCannotBeReviewedIsOneFailure) {
  TestCase c = caseFor(R"({"apiVersion": "v1", "kind": "ConfigMap"})");
  const auto got = check(c);
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].rfind("cannot review: kind ConfigMap", 0), 0u) << got[0];
}

TEST_F(CaseChecksTest, CaseNamespaceThatDisagreesIsNamedAsTheCasesNamespace) {
  TestCase c = caseFor(trainingPod());
  c.namespaceName = "team-b";
  const auto got = check(c);
  ASSERT_EQ(got.size(), 1u);
  EXPECT_NE(got[0].find("does not match the case's namespace \"team-b\""), std::string::npos)
      << got[0];
}

// `ignore` that empties a map drops the map on both sides, as the API server drops empty maps:
// an expected object written without annotations matches a patched one whose only annotations
// are ignored. A map that was empty before the ignore is still compared.
TEST_F(CaseChecksTest, IgnoreThatEmptiesAMapDropsIt) {
  TestCase c = caseFor(trainingPod());
  const ReviewReport report =
      runReview({.object = c.object.get(), .namespaceName = "", .namespaceOrigin = "x"}, *policy_,
                emptyUsage());
  ASSERT_TRUE(report.patched.HasMember("metadata"));
  // The webhook's own annotations, the pod's only ones: ignore them all.
  const auto& annotations = report.patched["metadata"]["annotations"];
  ASSERT_EQ(toJson(annotations, false).rfind(R"({"gpu-admission.io/class":"training",)", 0), 0u);
  ASSERT_EQ(annotations.MemberCount(), 2u);
  ASSERT_TRUE(annotations.HasMember("gpu-admission.io/policy"));

  rapidjson::Document expected;
  expected.CopyFrom(report.patched, expected.GetAllocator());
  expected["metadata"].RemoveMember("annotations");
  testing::ScratchDir dir;
  c.expect.patchedPodFile = dir.write("expected.json", toJson(expected, true));
  c.expect.ignore = {"/metadata/annotations/gpu-admission.io~1class",
                     "/metadata/annotations/gpu-admission.io~1policy"};
  EXPECT_TRUE(check(c).empty()) << ::testing::PrintToString(check(c));

  // Written as `annotations: {}`, the expected map was not emptied by the ignore: it differs.
  expected["metadata"].AddMember("annotations", rapidjson::Value(rapidjson::kObjectType),
                                 expected.GetAllocator());
  c.expect.patchedPodFile = dir.write("expected.json", toJson(expected, true));
  const auto failures = checkCase(c, *policy_, files_);
  ASSERT_EQ(failures.size(), 1u) << failures[0].message;
  EXPECT_EQ(failures[0].diff,
            std::vector<std::string>{"/metadata/annotations: expected {}, missing"});
}

// Usage from the case reaches the quota check: team-a's budget is 12 GPU-equivalents.
TEST_F(CaseChecksTest, CaseUsageDrivesTheQuota) {
  TestCase c = caseFor(trainingPod(2));
  c.usage.given = true;
  c.usage.namespaces["team-a"].gpuEquivalents = 11;
  c.expect.allowed = false;
  c.expect.violations = {"quota"};
  EXPECT_TRUE(check(c).empty()) << ::testing::PrintToString(check(c));
}

// A policy whose class choice depends on a label the webhook itself adds is not idempotent.
TEST_F(CaseChecksTest, NonIdempotentPolicyIsReported) {
  policy_ = testPolicy(R"(apiVersion: gpu-admission.io/v1
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
  TestCase c = caseFor(R"({"apiVersion": "v1", "kind": "Pod",
      "metadata": {"name": "p", "namespace": "x", "labels": {"gpu-admission.io/class": "training"}},
      "spec": {"containers": [{"name": "c", "resources": {"limits": {"nvidia.com/gpu": 1}}}]}})");
  c.expect.className = "first";
  const auto failures = checkCase(c, *policy_, files_);
  ASSERT_EQ(failures.size(), 1u);
  EXPECT_EQ(failures[0].message.rfind("idempotence: expected no patch on re-run, got ", 0), 0u)
      << failures[0].message;
  EXPECT_FALSE(failures[0].diff.empty());
}

}  // namespace
}  // namespace gpua::authoring
