// The comparison behind `test --against-native`: the apiserver's answers read, and each way the
// webhook and the compiled policies can agree or differ.
#include "authoring/native_comparison.hpp"

#include <gtest/gtest.h>

namespace gpua::authoring {
namespace {

using Kind = NativeAnswer::Kind;
using Result = NativeComparison::Result;

const std::set<std::string, std::less<>> kCompiled = {"max-per-pod", "gpu-forbidden"};

ReviewReport deniedBy(const std::vector<engine::Violation>& violations) {
  ReviewReport r;
  r.allowed = false;
  r.decision.emplace();
  r.decision->violations.assign(violations.begin(), violations.end());
  return r;
}

// Sized: the SIMD reader must not read past a literal's end.
void parseInto(rapidjson::Document& d, std::string_view json) {
  d.Parse(json.data(), json.size());
}

constexpr std::string_view kMaxMessage = "pod asks for 9 GPUs; class training allows at most 8";

NativeAnswer policyDenial(std::string_view message) {
  return {Kind::DeniedByPolicy,
          "pods \"p\" is forbidden: ValidatingAdmissionPolicy "
          "'gpu-admission-enforce' with binding 'gpu-admission-enforce' "
          "denied request: " +
              std::string(message)};
}

TEST(NativeAnswerOf, ReadsCreatedPolicyDenialsAndOtherRefusals) {
  EXPECT_EQ(nativeAnswerOf(201, R"({"kind":"Pod"})").kind, Kind::Admitted);
  const auto denied = nativeAnswerOf(
      403,
      R"({"kind":"Status","message":"pods \"p\" is forbidden: ValidatingAdmissionPolicy 'gpu-admission-enforce' with binding 'b' denied request: no"})");
  EXPECT_EQ(denied.kind, Kind::DeniedByPolicy);
  EXPECT_NE(denied.message.find("denied request: no"), std::string::npos);
  const auto invalid = nativeAnswerOf(
      422,
      R"({"kind":"Status","message":"Pod \"p\" is invalid: spec.containers: Required value"})");
  EXPECT_EQ(invalid.kind, Kind::RefusedOtherwise);
  EXPECT_EQ(nativeAnswerOf(500, "not json").message, "HTTP 500: not json");
}

TEST(CompareWithNative, AFindingThatReadOtherObjectsIsTheWebhooksAloneEvenOfACompiledRule) {
  // placement-conflict is compiled, but not its bound-node form, which reads the node's labels.
  engine::Violation boundNode{"max-per-pod", "pod \"p\": its spec.nodeName n1 is a node outside",
                              false, true};
  const auto r = compareWithNative(deniedBy({boundNode}), {Kind::Admitted, {}}, kCompiled);
  EXPECT_EQ(r.result, Result::WebhookOnly) << r.text;
}

TEST(CompareWithNative, BothAdmitAgree) {
  EXPECT_EQ(compareWithNative(ReviewReport{}, {Kind::Admitted, {}}, kCompiled).result,
            Result::Agree);
}

TEST(CompareWithNative, BothDenyWithTheWebhooksMessageAgree) {
  const auto r = compareWithNative(deniedBy({{"max-per-pod", std::string(kMaxMessage)}}),
                                   policyDenial(kMaxMessage), kCompiled);
  EXPECT_EQ(r.result, Result::Agree) << r.text;
}

// The apiserver names a generateName-only pod before validating admission; the webhook's
// review of the case as written names it by its generateName.
TEST(CompareWithNative, AGeneratedNameIsTheWebhooksGenerateName) {
  ReviewReport r =
      deniedBy({{"max-per-pod", R"(pod "train-" (generateName) asks for 9 GPUs; at most 8)"}});
  parseInto(r.sent, R"({"metadata":{"generateName":"train-"}})");
  EXPECT_EQ(compareWithNative(r, policyDenial(R"(pod "train-x7k2q" asks for 9 GPUs; at most 8)"),
                              kCompiled)
                .result,
            Result::Agree);
  EXPECT_EQ(compareWithNative(r, policyDenial(R"(pod "train-x7k2q" asks for 7 GPUs; at most 8)"),
                              kCompiled)
                .result,
            Result::Differ);
  parseInto(r.sent, R"({"metadata":{"name":"train-x7k2q","generateName":"train-"}})");
  EXPECT_EQ(compareWithNative(r, policyDenial(R"(pod "train-x7k2q" asks for 9 GPUs; at most 8)"),
                              kCompiled)
                .result,
            Result::Differ)
      << "a named pod keeps its name";
}

TEST(CompareWithNative, ACompiledRuleTheNativePoliciesMissIsADifference) {
  const auto r = compareWithNative(deniedBy({{"max-per-pod", std::string(kMaxMessage)}}),
                                   {Kind::Admitted, {}}, kCompiled);
  EXPECT_EQ(r.result, Result::Differ);
  EXPECT_NE(r.text.find("max-per-pod"), std::string::npos) << r.text;
}

TEST(CompareWithNative, AnotherMessageForTheSameDenialIsADifference) {
  const auto r = compareWithNative(deniedBy({{"max-per-pod", std::string(kMaxMessage)}}),
                                   policyDenial("pod asks for 9 GPUs"), kCompiled);
  EXPECT_EQ(r.result, Result::Differ) << r.text;
}

TEST(CompareWithNative, ARuleNotCompiledIsTheWebhooksAlone) {
  const auto r =
      compareWithNative(deniedBy({{"quota", "over the quota"}}), {Kind::Admitted, {}}, kCompiled);
  EXPECT_EQ(r.result, Result::WebhookOnly);
  EXPECT_NE(r.text.find("quota"), std::string::npos) << r.text;
}

TEST(CompareWithNative, AdvisoryFindingsDoNotDeny) {
  ReviewReport r = deniedBy({{"max-per-pod", std::string(kMaxMessage), true}});
  EXPECT_EQ(compareWithNative(r, {Kind::Admitted, {}}, kCompiled).result, Result::Agree);
}

TEST(CompareWithNative, NativeStricterThanTheWebhookIsADifference) {
  EXPECT_EQ(compareWithNative(ReviewReport{}, policyDenial(kMaxMessage), kCompiled).result,
            Result::Differ);
  EXPECT_EQ(
      compareWithNative(deniedBy({{"quota", "q"}}), policyDenial(kMaxMessage), kCompiled).result,
      Result::Differ);
}

TEST(CompareWithNative, APodTheApiserverRefusesItselfIsNotCompared) {
  const auto r = compareWithNative(ReviewReport{}, {Kind::RefusedOtherwise, "invalid"}, kCompiled);
  EXPECT_EQ(r.result, Result::NotCompared);
  EXPECT_NE(r.text.find("invalid"), std::string::npos);
}

}  // namespace
}  // namespace gpua::authoring
