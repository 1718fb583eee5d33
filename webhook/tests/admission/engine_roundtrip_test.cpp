// review() through the real engine: what the apiserver would receive for real pods, and proof
// that the patch we send applies (with the apiserver's strict rules) and converges.
#include <gtest/gtest.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "admission/review.hpp"
#include "engine/core/patch_op.hpp"
#include "engine/mutate/json_patch_apply.hpp"
#include "kube/base64.hpp"
#include "policy/loader.hpp"
#include "review_support.hpp"

namespace gpua::admission {
namespace {

namespace fs = std::filesystem;
using testing::parseBody;
using testing::RequestSpec;
using testing::reviewJson;

policy::PolicySet trainingPolicy() {
  policy::PolicySet p;
  p.name = "roundtrip";
  p.revision = "rev-1";
  policy::Pool pool;
  pool.name = "train-h100";
  pool.gpu = "H100-80GB";
  pool.nodeSelector = {{"gpu-admission.io/pool", "train"}};
  pool.taints = {{"nvidia.com/gpu", "", "NoSchedule"}};
  p.pools.push_back(pool);
  policy::WorkloadClass c;
  c.name = "training";
  policy::MatchRule rule;
  rule.labels = {{"gpu-admission.io/class", "training"}};
  c.match.any = {rule};
  c.pools = {"train-h100"};
  c.priorityClassName = "gpu-training";
  c.gpus.maxPerPod = 8;
  c.resolvedResource = "nvidia.com/gpu";
  p.classes.push_back(c);
  p.unclassifiedGpuPods.action = policy::UnclassifiedGpuPods::Action::Deny;
  return p;
}

std::string gpuPod(std::string_view labels, int gpus) {
  return R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"trainer","namespace":"team-a",)"
         R"("labels":{)" +
         std::string(labels) +
         R"(}},"spec":{"priority":0,"containers":[)"
         R"({"name":"main","image":"pytorch","resources":{"limits":{"nvidia.com/gpu":)" +
         std::to_string(gpus) + "}}}]}}";
}

std::string toJson(const rapidjson::Value& v) {
  rapidjson::StringBuffer sb;
  rapidjson::Writer<rapidjson::StringBuffer> w(sb);
  v.Accept(w);
  return {sb.GetString(), sb.GetSize()};
}

// Applies the response's patch to `object` like the apiserver would; returns the new object.
std::string applyResponsePatch(const ReviewResult& r, const std::string& object) {
  const auto body = parseBody(r.body);
  const auto& resp = body["response"];
  if (!resp.HasMember("patch")) return object;
  EXPECT_STREQ(resp["patchType"].GetString(), "JSONPatch");
  const auto decoded = kube::base64Decode(resp["patch"].GetString());
  EXPECT_TRUE(decoded.has_value());
  EXPECT_EQ(*decoded, engine::serializePatch(r.decision->patch));
  rapidjson::Document doc;
  doc.Parse(object.data(), object.size());  // sized: no SIMD over-read
  const auto err = engine::applyPatch(doc, r.decision->patch);
  EXPECT_FALSE(err.has_value()) << *err;
  return toJson(doc);
}

class EngineRoundTrip : public ::testing::Test {
 protected:
  policy::PolicySet policy = trainingPolicy();
  engine::UsageSnapshot usage;

  ReviewResult run(const std::string& object, Endpoint e, std::string op = "CREATE") {
    RequestSpec s;
    s.operation = std::move(op);
    s.object = object;
    return review(reviewJson(s), e, policy, usage);
  }
};

TEST_F(EngineRoundTrip, TrainingPodIsPatchedAndThePatchConverges) {
  const std::string pod = gpuPod(R"("gpu-admission.io/class":"training")", 2);
  const ReviewResult first = run(pod, Endpoint::Mutate);
  ASSERT_EQ(first.httpStatus, 200) << first.body;
  ASSERT_TRUE(first.decision.has_value());
  EXPECT_EQ(first.decision->className, "training");
  const auto body = parseBody(first.body);
  EXPECT_TRUE(body["response"]["allowed"].GetBool()) << first.body;
  ASSERT_TRUE(body["response"].HasMember("patch")) << first.body;
  EXPECT_TRUE(body["response"].HasMember("warnings")) << "a warning lists the changes";

  const std::string patched = applyResponsePatch(first, pod);
  EXPECT_NE(patched.find("gpu-training"), std::string::npos) << patched;
  EXPECT_EQ(patched.find("\"priority\":0"), std::string::npos) << "priority must be removed";

  // Reinvocation: the same pod comes back with our changes; nothing more to do.
  const ReviewResult second = run(patched, Endpoint::Mutate);
  EXPECT_FALSE(parseBody(second.body)["response"].HasMember("patch")) << second.body;
  // The validating webhook sees the mutated pod: no patch, no "not applied" note.
  const ReviewResult validated = run(patched, Endpoint::Validate);
  EXPECT_TRUE(parseBody(validated.body)["response"]["allowed"].GetBool());
  EXPECT_EQ(validated.body.find("did not run"), std::string::npos) << validated.body;
}

TEST_F(EngineRoundTrip, ValidateNeverPatchesAndNotesMissingMutation) {
  const ReviewResult r =
      run(gpuPod(R"("gpu-admission.io/class":"training")", 1), Endpoint::Validate);
  ASSERT_EQ(r.httpStatus, 200);
  const auto body = parseBody(r.body);
  EXPECT_FALSE(body["response"].HasMember("patch"));
  EXPECT_FALSE(body["response"].HasMember("patchType"));
  EXPECT_NE(r.body.find("the mutating webhook did not run"), std::string::npos) << r.body;
}

std::vector<std::string> warningsOf(const ReviewResult& r) {
  std::vector<std::string> out;
  const auto body = parseBody(r.body);
  if (!body["response"].HasMember("warnings")) return out;
  for (const auto& w : body["response"]["warnings"].GetArray()) out.emplace_back(w.GetString());
  return out;
}

// What kubectl prints: the apiserver joins every webhook's warnings and drops repeated texts.
std::vector<std::string> shownByKubectl(const std::vector<std::vector<std::string>>& lists) {
  std::vector<std::string> out;
  for (const auto& list : lists)
    for (const auto& w : list)
      if (std::find(out.begin(), out.end(), w) == out.end()) out.push_back(w);
  return out;
}

long countStarting(const std::vector<std::string>& warnings, std::string_view prefix) {
  return std::count_if(warnings.begin(), warnings.end(),
                       [&](const std::string& w) { return w.starts_with(prefix); });
}

TEST_F(EngineRoundTrip, FailOpenQuotaWarningReachesKubectlOnceWhicheverWebhooksRan) {
  policy::Quota q;
  q.name = "team";
  q.gpuEquivalents = 16;
  policy.quotas.push_back(q);
  usage.available = false;
  usage.unavailableReason = "Kubernetes API unreachable";
  const std::string kNote = "GPU quota not checked: Kubernetes API unreachable";
  const std::string pod = gpuPod(R"("gpu-admission.io/class":"training")", 2);

  // Only the validating webhook ran (the mutating one is failurePolicy: Ignore).
  const ReviewResult alone = run(pod, Endpoint::Validate);
  ASSERT_TRUE(parseBody(alone.body)["response"]["allowed"].GetBool()) << alone.body;
  const auto validateOnly = warningsOf(alone);
  EXPECT_EQ(countStarting(validateOnly, kNote), 1) << alone.body;
  EXPECT_EQ(countStarting(validateOnly, "gpu-admission: the mutating webhook did not run"), 1);

  // Both ran: /mutate, then /validate of the patched pod.
  const ReviewResult mutated = run(pod, Endpoint::Mutate);
  const ReviewResult validated = run(applyResponsePatch(mutated, pod), Endpoint::Validate);
  const auto both = shownByKubectl({warningsOf(mutated), warningsOf(validated)});
  EXPECT_EQ(countStarting(both, kNote), 1) << mutated.body << "\n" << validated.body;
}

TEST_F(EngineRoundTrip, UnclassifiedGpuPodIsDeniedWith403Forbidden) {
  for (Endpoint e : {Endpoint::Validate, Endpoint::Both}) {
    const ReviewResult r = run(gpuPod(R"("app":"x")", 1), e);
    ASSERT_EQ(r.httpStatus, 200) << "deny with 200 and allowed:false, never HTTP 403";
    const auto body = parseBody(r.body);
    const auto& resp = body["response"];
    EXPECT_FALSE(resp["allowed"].GetBool()) << r.body;
    EXPECT_EQ(resp["status"]["code"].GetInt(), 403);
    EXPECT_STREQ(resp["status"]["reason"].GetString(), "Forbidden");
    EXPECT_NE(std::string(resp["status"]["message"].GetString()).find("trainer"), std::string::npos)
        << r.body;
    EXPECT_FALSE(resp.HasMember("patch"));
  }
}

TEST_F(EngineRoundTrip, CpuPodIsAdmittedUnchanged) {
  const ReviewResult r = run(
      R"({"kind":"Pod","metadata":{"name":"web"},"spec":{"containers":[{"name":"c","image":"nginx"}]}})",
      Endpoint::Mutate);
  ASSERT_EQ(r.httpStatus, 200);
  ASSERT_TRUE(r.decision.has_value());
  const auto body = parseBody(r.body);
  EXPECT_TRUE(body["response"]["allowed"].GetBool());
  EXPECT_FALSE(body["response"].HasMember("patch"));
}

TEST_F(EngineRoundTrip, UpdateOfAPodThatCreateWouldDenyPassesThrough) {
  const ReviewResult r = run(gpuPod(R"("app":"x")", 1), Endpoint::Validate, "UPDATE");
  ASSERT_EQ(r.httpStatus, 200);
  EXPECT_FALSE(r.decision.has_value());
  EXPECT_TRUE(parseBody(r.body)["response"]["allowed"].GetBool());
}

TEST_F(EngineRoundTrip, DeploymentTemplateIsValidatedWithoutPatch) {
  RequestSpec s;
  s.group = "apps";
  s.kind = "Deployment";
  s.object = R"({"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d"},"spec":{)"
             R"("template":{"metadata":{"labels":{"app":"x"}},"spec":{"containers":[{"name":"c",)"
             R"("image":"i","resources":{"limits":{"nvidia.com/gpu":1}}}]}}}})";
  const ReviewResult r = review(reviewJson(s), Endpoint::Validate, policy, usage);
  ASSERT_EQ(r.httpStatus, 200);
  ASSERT_TRUE(r.decision.has_value());
  const auto body = parseBody(r.body);
  EXPECT_FALSE(body["response"]["allowed"].GetBool()) << r.body;
  EXPECT_FALSE(body["response"].HasMember("patch"));
}

// spec.mutateTemplates: /mutate patches a Deployment's template on CREATE and on UPDATE (the
// scale subresource never reaches the engine); without it an UPDATE is not asked about.
TEST_F(EngineRoundTrip, OptedInTemplatesArePatchedOnCreateAndUpdate) {
  RequestSpec s;
  s.group = "apps";
  s.kind = "Deployment";
  s.object = R"({"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d"},"spec":{)"
             R"("template":{"metadata":{"labels":{"gpu-admission.io/class":"training"}},)"
             R"("spec":{"containers":[{"name":"c","image":"i","resources":{"limits":{)"
             R"("nvidia.com/gpu":1}}}]}}}})";
  s.operation = "UPDATE";
  EXPECT_FALSE(review(reviewJson(s), Endpoint::Mutate, policy, usage).decision.has_value());
  policy.mutatedTemplateKinds = {{"apps", "Deployment"}};
  for (const char* op : {"CREATE", "UPDATE"}) {
    SCOPED_TRACE(op);
    s.operation = op;
    const ReviewResult r = review(reviewJson(s), Endpoint::Mutate, policy, usage);
    ASSERT_TRUE(r.decision.has_value()) << r.body;
    const std::string patched = applyResponsePatch(r, s.object);
    EXPECT_NE(patched.find(R"("tolerations":[{"key":"nvidia.com/gpu")"), std::string::npos)
        << patched;
  }
  s.subResource = "scale";
  EXPECT_FALSE(review(reviewJson(s), Endpoint::Mutate, policy, usage).decision.has_value());
}

// A validating webhook sees the pod as the apiserver will store it. When the mutating webhook
// did not run (its failurePolicy is Ignore: a replica died mid-request), a notebook keeps its
// whole GPU; the quota must charge that GPU, not the L4 time-slice the class would have
// rewritten it to. Charging the quarter let a killed replica's burst overshoot a dev namespace's
// 2 GPU-equivalents by whole GPUs (the quota reservation test's fault run).
TEST(EngineQuotaCharge, ValidateChargesThePodAsStoredWhenTheMutationDidNotRun) {
  const auto loaded = policy::loadPolicyPaths({GPUA_POLICIES});
  ASSERT_TRUE(loaded.ok()) << "policies/ must load";
  const policy::PolicySet& shipped = *loaded.policy;
  engine::UsageSnapshot usage;
  usage.available = true;
  usage.namespaceLabels["team-a"] = {{"env", "dev"}};  // dev-namespaces: 2 GPU-equivalents
  usage.namespaces["team-a"].gpuEquivalents = 1.5;
  RequestSpec s;
  s.uid = "pod-uid-1";
  s.object = gpuPod(R"("gpu-admission.io/class":"interactive")", 1);

  const ReviewResult mutated = review(reviewJson(s), Endpoint::Mutate, shipped, usage);
  ASSERT_TRUE(mutated.decision.has_value()) << mutated.body;
  EXPECT_TRUE(mutated.decision->allowed()) << mutated.body;
  EXPECT_DOUBLE_EQ(mutated.decision->gpuEquivalents, 0.25) << "rewritten to a time-slice";

  const ReviewResult unmutated = review(reviewJson(s), Endpoint::Validate, shipped, usage);
  ASSERT_TRUE(unmutated.decision.has_value()) << unmutated.body;
  EXPECT_DOUBLE_EQ(unmutated.decision->gpuEquivalents, 1.0) << "the stored pod holds a GPU";
  ASSERT_EQ(unmutated.decision->violations.size(), 1u) << unmutated.body;
  EXPECT_EQ(unmutated.decision->violations[0].rule, "quota") << unmutated.body;
  EXPECT_FALSE(unmutated.decision->allowed()) << "1 GPU-equivalent over the 0.5 left";
  EXPECT_FALSE(unmutated.decision->quotaCharge.has_value()) << "a denied pod reserves nothing";

  // The mutated pod, validated, is charged its time-slice and admitted.
  RequestSpec stored = s;
  stored.object = applyResponsePatch(mutated, s.object);
  const ReviewResult validated = review(reviewJson(stored), Endpoint::Validate, shipped, usage);
  ASSERT_TRUE(validated.decision.has_value()) << validated.body;
  EXPECT_TRUE(validated.decision->allowed()) << validated.body;
  EXPECT_DOUBLE_EQ(validated.decision->gpuEquivalents, 0.25);
  ASSERT_TRUE(validated.decision->quotaCharge.has_value());
  EXPECT_EQ(validated.decision->quotaCharge->units,
            (std::map<std::string, int64_t>{{"nvidia.com/gpu.shared", 1}}));
}

// A pod over its quota in a warn-mode namespace is admitted with a warning, so it must still
// carry its charge: the reservation is what keeps the replicas' count exact.
TEST(EngineQuotaCharge, AWarnModePodOverItsQuotaIsStillCharged) {
  const auto loaded = policy::loadPolicyPaths({GPUA_POLICIES});
  ASSERT_TRUE(loaded.ok()) << "policies/ must load";
  engine::UsageSnapshot usage;
  usage.available = true;
  usage.namespaceLabels["vision-staging"] = {{"env", "staging"}, {"team", "vision"}};  // warn
  usage.namespaces["vision-staging"].gpuEquivalents = 16;  // team-vision's 16 all in use
  RequestSpec s;
  s.uid = "pod-uid-2";
  s.nameSpace = "vision-staging";
  s.object = gpuPod(R"("gpu-admission.io/class":"training")", 1);
  const ReviewResult r = review(reviewJson(s), Endpoint::Validate, *loaded.policy, usage);
  ASSERT_TRUE(r.decision.has_value()) << r.body;
  ASSERT_FALSE(r.decision->violations.empty()) << r.body;
  EXPECT_EQ(r.decision->violations[0].rule, "quota") << r.body;
  EXPECT_TRUE(r.decision->allowed()) << r.body;
  ASSERT_TRUE(r.decision->quotaCharge.has_value()) << r.body;
  EXPECT_EQ(r.decision->quotaCharge->quotas, std::vector<std::string>{"team-vision"});
}

struct CorpusTally {
  int pods = 0, patched = 0, denied = 0;
};

// Reviews every corpus pod on both endpoints; checks the envelope, that /validate never
// patches, and that the /mutate patch applies and converges.
CorpusTally reviewCorpus(const fs::path& dir, const policy::PolicySet& policy) {
  const engine::UsageSnapshot usage;
  CorpusTally t;
  for (const auto& entry : fs::directory_iterator(dir)) {
    if (entry.path().extension() != ".json") continue;
    std::ifstream in(entry.path());
    std::stringstream text;
    text << in.rdbuf();
    RequestSpec s;
    s.uid = entry.path().stem().string();
    s.object = text.str();
    SCOPED_TRACE(entry.path().filename().string());
    for (Endpoint e : {Endpoint::Mutate, Endpoint::Validate}) {
      const ReviewResult r = review(reviewJson(s), e, policy, usage);
      EXPECT_EQ(r.httpStatus, 200) << r.body;
      if (r.httpStatus != 200) continue;
      const auto body = parseBody(r.body);
      EXPECT_FALSE(body.HasParseError());
      EXPECT_EQ(std::string(body["response"]["uid"].GetString()), s.uid);
      if (e == Endpoint::Validate) {
        EXPECT_FALSE(body["response"].HasMember("patch"));
        continue;
      }
      // /mutate never denies (the validating webhook does): count the verdict the engine gave.
      EXPECT_TRUE(body["response"]["allowed"].GetBool()) << r.body;
      t.patched += body["response"].HasMember("patch") ? 1 : 0;
      t.denied += r.decision && !r.decision->allowed() ? 1 : 0;
      RequestSpec again = s;
      again.object = applyResponsePatch(r, s.object);
      const ReviewResult second = review(reviewJson(again), Endpoint::Mutate, policy, usage);
      EXPECT_FALSE(parseBody(second.body)["response"].HasMember("patch")) << second.body;
    }
    ++t.pods;
  }
  return t;
}

TEST(EngineCorpus, ShippedPoliciesAnswerEveryCorpusPod) {
  const fs::path dir = fs::path(GPUA_CORPUS) / "pods";
  if (!fs::is_directory(dir)) GTEST_SKIP() << "corpus not present at " << dir;
  const auto loaded = policy::loadPolicyPaths({GPUA_POLICIES});
  if (!loaded.ok()) GTEST_SKIP() << "policies/ does not load (tested by the policy suite)";
  const CorpusTally t = reviewCorpus(dir, *loaded.policy);
  EXPECT_GT(t.pods, 0);
  EXPECT_GT(t.patched, 0);  // the corpus has GPU pods the shipped policy changes
  std::printf("corpus under policies/: %d pods, %d patched, %d denied\n", t.pods, t.patched,
              t.denied);
}

TEST(EngineCorpus, EnforcingPolicyPatchesAndDeniesCorpusPods) {
  const fs::path dir = fs::path(GPUA_CORPUS) / "pods";
  if (!fs::is_directory(dir)) GTEST_SKIP() << "corpus not present at " << dir;
  const CorpusTally t = reviewCorpus(dir, trainingPolicy());
  EXPECT_GT(t.pods, 0);
  // Unlabelled GPU pods are unclassified, hence denied under enforce.
  EXPECT_GT(t.denied, 0);
  std::printf("corpus under the test policy: %d pods, %d patched, %d denied\n", t.pods, t.patched,
              t.denied);
}

// The request path keeps one result per thread and reviews into it: nothing of one request may
// show in the next. Each review into the kept result must equal a fresh review of the same
// bytes on a thread of its own, field by field, whatever came before (a mutation, a denial, a
// refusal, another namespace with other labels, a request without userInfo or kind).
TEST(ReviewIntoAKeptResult, EqualsAFreshReviewWhateverCameBefore) {
  const auto policy = trainingPolicy();
  engine::UsageSnapshot usage;
  usage.available = true;
  usage.namespaceLabels["team-a"] = {{"env", "dev"}, {"team", "vision"}};
  RequestSpec mutate;
  mutate.object = gpuPod(R"("gpu-admission.io/class":"training")", 2);
  RequestSpec deny;
  deny.uid = "deny-0000-1111-2222-333344445555-and-some-more";
  deny.object = gpuPod(R"("app":"x")", 1);
  RequestSpec otherNamespace = mutate;
  otherNamespace.nameSpace = "unlabelled";
  otherNamespace.dryRun = true;
  const std::string envelopeOnly =
      R"({"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"u2",)"
      R"("operation":"DELETE","namespace":"team-a"}})";
  const std::vector<std::pair<std::string, Endpoint>> sequence = {
      {reviewJson(mutate), Endpoint::Mutate},
      {reviewJson(deny), Endpoint::Validate},
      {"{not json", Endpoint::Mutate},
      {reviewJson(otherNamespace), Endpoint::Both},
      {envelopeOnly, Endpoint::Validate},
      {R"({"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{}})",
       Endpoint::Mutate},
      {reviewJson(mutate), Endpoint::Validate},
      {reviewJson(deny), Endpoint::Mutate},
      {reviewJson(mutate), Endpoint::Mutate},
  };
  ReviewResult kept;
  for (std::size_t i = 0; i < sequence.size(); ++i) {
    const auto& [body, endpoint] = sequence[i];
    review(body, endpoint, policy, usage, engine::noSupply(), kept);
    // On a new thread: the request path's per-thread state starts empty there.
    ReviewResult fresh;
    std::thread([&] { fresh = review(body, endpoint, policy, usage, engine::noSupply()); }).join();
    const std::string at = "request " + std::to_string(i);
    EXPECT_EQ(kept.httpStatus, fresh.httpStatus) << at;
    EXPECT_EQ(kept.body, fresh.body) << at;
    EXPECT_EQ(kept.errorKind, fresh.errorKind) << at;
    EXPECT_EQ(kept.uid, fresh.uid) << at;
    EXPECT_EQ(kept.namespaceName, fresh.namespaceName) << at;
    EXPECT_EQ(kept.name, fresh.name) << at;
    EXPECT_EQ(kept.kind, fresh.kind) << at;
    EXPECT_EQ(kept.operation, fresh.operation) << at;
    EXPECT_EQ(kept.group, fresh.group) << at;
    EXPECT_EQ(kept.userName, fresh.userName) << at;
    EXPECT_EQ(kept.dryRun, fresh.dryRun) << at;
    ASSERT_EQ(kept.decision.has_value(), fresh.decision.has_value()) << at;
    if (!fresh.decision) continue;
    EXPECT_EQ(engine::serializePatch(kept.decision->patch),
              engine::serializePatch(fresh.decision->patch))
        << at;
    EXPECT_EQ(kept.decision->warnings, fresh.decision->warnings) << at;
    EXPECT_EQ(kept.decision->allowed(), fresh.decision->allowed()) << at;
  }
  // The sequence reached what it is meant to: a mutation, a denial, a refusal.
  review(reviewJson(deny), Endpoint::Validate, policy, usage, engine::noSupply(), kept);
  ASSERT_TRUE(kept.decision.has_value());
  EXPECT_FALSE(kept.decision->allowed());
  review("{not json", Endpoint::Mutate, policy, usage, engine::noSupply(), kept);
  EXPECT_EQ(kept.httpStatus, 400);
  EXPECT_FALSE(kept.decision.has_value());
}

}  // namespace
}  // namespace gpua::admission
