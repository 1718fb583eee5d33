// Rollout modes: enforce denies, warn admits with warnings, audit admits and records, observe
// changes nothing and only records.
#include <gtest/gtest.h>

#include "engine/core/text.hpp"
#include "engine/verdict.hpp"
#include "test_support.hpp"

namespace gpua::engine {
namespace {

using namespace testing;

policy::PolicySet stagedPolicy() {
  auto p = makePolicy();
  policy::RolloutRule dev;
  dev.namespaces = policy::NamespaceSelector{};
  dev.namespaces->labels.matchLabels = {{"env", "dev"}};
  dev.mode = policy::Mode::Enforce;
  policy::RolloutRule audit;
  audit.namespaces = policy::NamespaceSelector{};
  audit.namespaces->names = {"legacy"};
  audit.mode = policy::Mode::Audit;
  p.rollout = {dev, audit, {std::nullopt, policy::Mode::Warn}};
  return p;
}

const std::string kTooMany =
    gpuPod(R"({"gpu-admission.io/class":"training"})", R"({"limits":{"nvidia.com/gpu":16}})");

TEST(Modes, NoRuleMatchingMeansEnforce) {
  rapidjson::Document pod = parse(kTooMany);
  const Decision d = decide(pod, podContext(), makePolicy(), emptyUsage());
  EXPECT_EQ(d.mode, policy::Mode::Enforce);
  EXPECT_FALSE(d.allowed());
}

TEST(Modes, FirstMatchingRuleWins) {
  rapidjson::Document pod = parse(kTooMany);
  const Decision d =
      decide(pod, podContext("legacy", {{"env", "dev"}}), stagedPolicy(), emptyUsage());
  EXPECT_EQ(d.mode, policy::Mode::Enforce);
  EXPECT_FALSE(d.allowed());
}

TEST(Modes, WarnAdmitsWithPrefixedWarningsAndStillMutates) {
  const Applied run =
      decideAndApply(kTooMany, stagedPolicy(), podContext("team", {{"env", "prod"}}));
  const Decision& d = run.decision;
  EXPECT_EQ(d.mode, policy::Mode::Warn);
  ASSERT_TRUE(d.allowed());
  ASSERT_EQ(d.violations.size(), 1u);
  EXPECT_FALSE(d.patch.empty());
  ASSERT_EQ(d.warnings.size(), 2u);
  EXPECT_EQ(d.warnings[0].rfind("gpu-admission: class training: ", 0), 0u);
  EXPECT_EQ(d.warnings[1],
            "gpu-admission (warn mode): pod \"trainer-0\" container \"pytorch\" asks for 16 "
            "nvidia.com/gpu but class training allows at most 8 per pod: split the job across "
            "more pods or ask the platform team for a larger limit");
  EXPECT_EQ(at(run.patched, "/spec/priorityClassName"), R"("gpu-training")");
}

// The first stage of a rollout: a pod that enforce would deny and mutate gets neither a denial
// nor a patch nor a warning; the audit annotations and the decision's changes say what the
// policy would have done.
TEST(Modes, ObserveChangesNothingAndRecordsWhatItWouldDo) {
  auto p = makePolicy();
  p.rollout = {{std::nullopt, policy::Mode::Observe}};
  rapidjson::Document tooMany = parse(kTooMany);
  const Decision denied = decide(tooMany, podContext(), p, emptyUsage());
  EXPECT_EQ(denied.mode, policy::Mode::Observe);
  EXPECT_TRUE(denied.allowed());
  EXPECT_TRUE(denied.patch.empty());
  EXPECT_TRUE(denied.warnings.empty());
  EXPECT_EQ(denied.auditAnnotations.at("violation-rules"), "max-per-pod");
  EXPECT_EQ(denied.auditAnnotations.at("mode"), "observe");

  rapidjson::Document fits = parse(
      gpuPod(R"({"gpu-admission.io/class":"training"})", R"({"limits":{"nvidia.com/gpu":2}})"));
  const Decision mutated = decide(fits, podContext(), p, emptyUsage());
  EXPECT_TRUE(mutated.allowed());
  EXPECT_TRUE(mutated.patch.empty()) << "observe writes nothing into the pod";
  EXPECT_TRUE(mutated.warnings.empty());
  ASSERT_FALSE(mutated.changes.empty()) << "the decision log still says what would change";
  EXPECT_NE(mutated.auditAnnotations.at("would-change").find("gpu-training"), std::string::npos)
      << mutated.auditAnnotations.at("would-change");
}

TEST(Modes, WarnNeverRewritesAnInvalidQuantity) {
  // An inference pod would get nvidia.com/gpu renamed to its MIG profile; "1.5" is not a GPU
  // count, so it stays exactly as written (no rename, no limit copied from it).
  auto policy = stagedPolicy();
  for (const std::string resources :
       {R"({"limits":{"nvidia.com/gpu":"1.5"}})", R"({"requests":{"nvidia.com/gpu":"1.5"}})",
        R"({"requests":{"nvidia.com/gpu":"1"},"limits":{"nvidia.com/gpu":"x"}})"}) {
    SCOPED_TRACE(resources);
    const Applied run =
        decideAndApply(gpuPod(R"({"gpu-admission.io/class":"inference"})", resources), policy,
                       podContext("team", {{"env", "prod"}}));
    ASSERT_TRUE(run.decision.allowed());
    EXPECT_EQ(run.decision.mode, policy::Mode::Warn);
    ASSERT_FALSE(run.decision.violations.empty());
    EXPECT_EQ(run.decision.violations[0].rule, "invalid-gpu-quantity");
    EXPECT_EQ(at(run.patched, "/spec/containers/0/resources"), resources);
    for (const auto& op : run.decision.patch)
      EXPECT_EQ(op.path.find("/resources"), std::string::npos) << op.path;
  }
}

TEST(Modes, AuditAdmitsSilentlyAndRecords) {
  const Applied run = decideAndApply(kTooMany, stagedPolicy(), podContext("legacy", {}));
  const Decision& d = run.decision;
  EXPECT_EQ(d.mode, policy::Mode::Audit);
  ASSERT_TRUE(d.allowed());
  EXPECT_FALSE(d.patch.empty());
  for (const auto& w : d.warnings) EXPECT_EQ(w.find("warn mode"), std::string::npos);
  EXPECT_EQ(d.auditAnnotations.at("violation-rules"), "max-per-pod");
  EXPECT_EQ(d.auditAnnotations.at("class"), "training");
  EXPECT_EQ(d.auditAnnotations.at("mode"), "audit");
  EXPECT_NE(d.auditAnnotations.at("violation").find("allows at most 8 per pod"), std::string::npos);
  for (const auto& [key, value] : d.auditAnnotations) {
    EXPECT_LE(key.size(), 63u);
    for (char c : key)
      EXPECT_TRUE(isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.')
          << key;
  }
}

TEST(Modes, WarningsHaveNoControlCharacters) {
  const std::string pod =
      "{\"metadata\":{\"name\":\"evil\\nname\\u0007\",\"labels\":{\"gpu-admission.io/"
      "class\":\"training\"}},"
      "\"spec\":{\"containers\":[{\"name\":\"c\\r\",\"resources\":{\"limits\":{\"nvidia.com/"
      "gpu\":20}}}]}}";
  rapidjson::Document d = parse(pod);
  const Decision decision = decide(d, podContext("team", {}), stagedPolicy(), emptyUsage());
  ASSERT_FALSE(decision.warnings.empty());
  for (const auto& w : decision.warnings)
    for (char c : w) EXPECT_GE(static_cast<unsigned char>(c), 0x20u) << w;
}

TEST(MutationWarning, OneShortLineListingTheChanges) {
  const Applied run = decideAndApply(gpuPod(kTraining, kOneGpu), makePolicy());
  ASSERT_EQ(run.decision.warnings.size(), 1u);
  EXPECT_EQ(run.decision.warnings[0],
            "gpu-admission: class training: node affinity pool train-h100, toleration "
            "nvidia.com/gpu, priorityClassName gpu-training");
  EXPECT_EQ(run.decision.changes.size(), 3u);
}

TEST(MutationWarning, LongListsAreCut) {
  auto p = makePolicy();
  for (int i = 0; i < 12; ++i)
    p.pools[0].taints.push_back({"taint-key-number-" + std::to_string(i), "", ""});
  const Applied run = decideAndApply(gpuPod(kTraining, kOneGpu), p);
  ASSERT_EQ(run.decision.warnings.size(), 1u);
  EXPECT_LE(run.decision.warnings[0].size(), 130u);
  EXPECT_NE(run.decision.warnings[0].find("more)"), std::string::npos);
}

// The denial and the "violation" annotation are written in place; what they say is the
// first counted message plus " (and N more)", made one line and cut as text::oneLine cuts
// (the way they were built before), whatever the messages hold.
TEST(VerdictText, FirstMessageWithCountEqualsTheJoinedLineCut) {
  const std::vector<std::string> messages = {
      "pod \"p\" asks for 9 GPUs", "two\nlines",
      std::string(1990, 'x'),      std::string(2100, 'y'),
      "caf\xc3\xa9 \xe2\x82\xac",  std::string(995, 'z') + "\xc3\xa9\xc3\xa9\xc3\xa9",
  };
  Decision kept;  // decided into again and again, as the request path does
  for (const auto& first : messages) {
    for (std::size_t extra = 0; extra < 3; ++extra) {
      kept.clear();
      kept.mode = policy::Mode::Enforce;
      kept.violations.push_back({"rule-a", first});
      kept.violations.push_back({"advisory", "not counted for the denial", true});
      for (std::size_t i = 0; i < extra; ++i) kept.violations.push_back({"rule-b", "more"});
      applyVerdict(kept);
      const std::string counted =
          extra == 0 ? first : first + " (and " + std::to_string(extra) + " more)";
      const std::string all = first + " (and " + std::to_string(extra + 1) + " more)";
      ASSERT_TRUE(kept.denial.has_value());
      EXPECT_EQ(kept.denial->message, text::oneLine(counted, 2000)) << first.substr(0, 40);
      EXPECT_EQ(kept.auditAnnotations.at("violation"), text::oneLine(all, 1000));
      std::string rules = "rule-a,advisory";
      for (std::size_t i = 0; i < extra; ++i) rules += ",rule-b";
      EXPECT_EQ(kept.auditAnnotations.at("violation-rules"), rules);
    }
  }
}

TEST(KeptOptional, ResetKeepsTheValuesMemoryAndEmplaceGivesADefault) {
  KeptOptional<Denial> denial;
  EXPECT_FALSE(denial.has_value());
  Denial& d = denial.emplace();
  d.code = 500;
  d.reason = "Other";
  d.message.assign(300, 'm');
  const char* memory = denial->message.data();
  denial.reset();
  EXPECT_FALSE(denial);
  const Denial& again = denial.emplace();
  EXPECT_TRUE(denial);
  EXPECT_EQ(again.code, 403);
  EXPECT_EQ(again.reason, "Forbidden");
  EXPECT_TRUE(again.message.empty());
  EXPECT_EQ(again.message.data(), memory);
  denial = Denial{409, "Conflict", "m"};
  EXPECT_EQ(denial->code, 409);
}

}  // namespace
}  // namespace gpua::engine
