// The codec around decide(): envelope checks, request context, response shape. These tests put
// scripted decision functions behind review()'s DecideFn seam so every response branch is
// reached without depending on a particular policy.
#include <gtest/gtest.h>

#include <cstdio>
#include <stdexcept>

#include "admission/review.hpp"
#include "engine/core/patch_op.hpp"
#include "kube/base64.hpp"
#include "review_support.hpp"

namespace gpua::admission {
namespace {

using testing::parseBody;
using testing::RequestSpec;
using testing::reviewJson;

const policy::PolicySet kPolicy{};
const engine::UsageSnapshot kUsage{};

// What the last scripted decide() saw, and what it returns next.
engine::RequestContext gSeen;
int gCalls = 0;
engine::Decision gNext;

engine::Decision scripted(const rapidjson::Value& object, const engine::RequestContext& ctx,
                          const policy::PolicySet&, const engine::UsageSnapshot&) {
  ++gCalls;
  gSeen = ctx;
  EXPECT_TRUE(object.IsObject());
  return gNext;
}

engine::Decision throwing(const rapidjson::Value&, const engine::RequestContext&,
                          const policy::PolicySet&, const engine::UsageSnapshot&) {
  throw std::runtime_error("boom\nsecond line");
}

engine::Decision throwingNonStd(const rapidjson::Value&, const engine::RequestContext&,
                                const policy::PolicySet&, const engine::UsageSnapshot&) {
  throw 42;
}

class ReviewCodec : public ::testing::Test {
 protected:
  void SetUp() override {
    gCalls = 0;
    gSeen = {};
    gNext = {};
  }
  ReviewResult run(const std::string& body, Endpoint e = Endpoint::Mutate) {
    return review(body, e, kPolicy, kUsage, &scripted);
  }
  void expectBad(const std::string& body, const std::string& kind, const std::string& text) {
    const ReviewResult r = run(body);
    EXPECT_EQ(r.httpStatus, 400) << body.substr(0, 200);
    EXPECT_EQ(r.errorKind, kind) << body.substr(0, 200);
    EXPECT_NE(r.body.find(text), std::string::npos) << r.body;
    EXPECT_EQ(r.body.find('\n'), std::string::npos) << "error message must be one line";
    EXPECT_FALSE(r.decision.has_value());
    EXPECT_EQ(gCalls, 0);
  }
};

engine::Patch samplePatch() {
  return {
      {engine::PatchOp::Kind::Add, "/metadata/labels", R"({"gpu-admission.io/class":"training"})"},
      {engine::PatchOp::Kind::Remove, "/spec/priority", ""}};
}

TEST_F(ReviewCodec, RejectsInvalidJson) {
  expectBad("", "invalid-json", "empty request body");
  expectBad("  \n", "invalid-json", "empty request body");
  expectBad("garbage", "invalid-json", "byte offset 0");
  expectBad(R"({"apiVersion":)", "invalid-json", "byte offset 14");
  expectBad(R"({"a":1} trailing)", "invalid-json", "byte offset 8");
  expectBad(R"({"a":1} trailing)", "invalid-json", "root must not be followed by other values");
  expectBad(std::string("{\"a\":1}\0{}", 10), "invalid-json", "NUL byte");
}

// RFC 8259 allows no unescaped U+0000..U+001F in a string, and the apiserver's encoder escapes
// them all. RapidJSON 1.1's SSE2 scanner only stops at bytes up to 0x19, so 0x1A..0x1F (ESC
// among them) got through whenever they fell in an aligned 16-byte block: every position of
// every control byte must be refused, naming its exact offset.
TEST_F(ReviewCodec, RejectsEveryUnescapedControlCharacterAtItsOffset) {
  const std::string name(48, 'n');
  for (int c = 1; c < 0x20; ++c) {
    for (std::size_t at = 0; at < 32; ++at) {
      RequestSpec s;
      std::string raw = name;
      raw[at + 8] = static_cast<char>(c);
      s.object = R"({"kind":"Pod","metadata":{"name":")" + raw + R"("}})";
      const std::string body = reviewJson(s);
      const std::size_t offset = body.find(static_cast<char>(c));
      // TAB, LF and CR are whitespace between tokens: RapidJSON refuses them inside a string.
      const bool whitespace = c == '\t' || c == '\n' || c == '\r';
      char hex[8];
      std::snprintf(hex, sizeof hex, "U+%04X", c);
      expectBad(body, "invalid-json",
                "byte offset " + std::to_string(offset) + ": " +
                    (whitespace ? "" : std::string("unescaped control character ") + hex));
    }
  }
}

TEST_F(ReviewCodec, WhitespaceBetweenTokensAndEscapedControlsAreFine) {
  RequestSpec s;
  s.object = "{\"kind\":\t\"Pod\",\r\n \"metadata\":{\"name\":\"a\\u001bb\\t\"}}";
  const ReviewResult r = run(reviewJson(s));
  EXPECT_EQ(r.httpStatus, 200) << r.body;
}

TEST_F(ReviewCodec, RejectsDeepNestingBeforeParsing) {
  expectBad(std::string(100000, '['), "too-deep", "deeper than 64");
  const std::string deepObject = [] {
    RequestSpec s;
    std::string v = "1";
    for (int i = 0; i < 70; ++i) v = "[" + v + "]";
    s.object = R"({"kind":"Pod","spec":{"x":)" + v + "}}";
    return reviewJson(s);
  }();
  expectBad(deepObject, "too-deep", "nesting");
}

TEST_F(ReviewCodec, RejectsWrongEnvelope) {
  expectBad("[]", "not-object", "must be a JSON object");
  expectBad(R"("str")", "not-object", "JSON object");
  expectBad(
      R"({"apiVersion":"admission.k8s.io/v1beta1","kind":"AdmissionReview","request":{"uid":"u"}})",
      "wrong-api-version", "\"admission.k8s.io/v1beta1\" is not served");
  expectBad(R"({"kind":"AdmissionReview","request":{"uid":"u"}})", "wrong-api-version",
            "(missing)");
  expectBad(R"({"apiVersion":"admission.k8s.io/v1","kind":"Pod","request":{"uid":"u"}})",
            "wrong-kind", "\"Pod\" is not AdmissionReview");
  expectBad(R"({"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview"})", "missing-request",
            "no request");
  expectBad(R"({"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":[]})",
            "missing-request", "no request");
}

TEST_F(ReviewCodec, RejectsMissingUid) {
  RequestSpec s;
  s.uid = "";
  expectBad(reviewJson(s), "missing-uid", "request.uid");
  expectBad(R"({"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":7}})",
            "missing-uid", "request.uid is missing");
}

TEST_F(ReviewCodec, RejectsCreateAndUpdateWithoutObject) {
  RequestSpec s;
  s.object = "";
  expectBad(reviewJson(s), "missing-object", "CREATE request for uid " + s.uid);
  s.operation = "UPDATE";
  expectBad(reviewJson(s), "missing-object", "UPDATE");
  s.operation = "CREATE";
  s.object = "null";
  expectBad(reviewJson(s), "missing-object", "request.object");
}

TEST_F(ReviewCodec, RejectsPodRequestCarryingAnotherKind) {
  RequestSpec s;
  s.object = R"({"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d"}})";
  expectBad(reviewJson(s), "object-not-pod", "request.object.kind is \"Deployment\"");
  s.object = R"({"kind":5})";
  expectBad(reviewJson(s), "object-not-pod", "(missing)");
}

TEST_F(ReviewCodec, PodWithoutObjectKindIsAccepted) {
  RequestSpec s;
  s.object = R"({"metadata":{"name":"p"},"spec":{}})";
  EXPECT_EQ(run(reviewJson(s)).httpStatus, 200);
  EXPECT_EQ(gCalls, 1);
}

TEST_F(ReviewCodec, EchoesUidApiVersionAndKind) {
  RequestSpec s;
  s.uid = "uid-with-\\\"quote";  // JSON-escaped in the request: uid-with-"quote
  const ReviewResult r = run(reviewJson(s));
  ASSERT_EQ(r.httpStatus, 200) << r.body;
  const auto d = parseBody(r.body);
  ASSERT_FALSE(d.HasParseError()) << r.body;
  EXPECT_STREQ(d["apiVersion"].GetString(), "admission.k8s.io/v1");
  EXPECT_STREQ(d["kind"].GetString(), "AdmissionReview");
  EXPECT_STREQ(d["response"]["uid"].GetString(), "uid-with-\"quote");
  EXPECT_EQ(r.uid, "uid-with-\"quote");
  EXPECT_TRUE(d["response"]["allowed"].GetBool());
  EXPECT_EQ(d["response"].MemberCount(), 2u) << r.body;  // nothing else when nothing to say
}

TEST_F(ReviewCodec, BuildsTheRequestContext) {
  engine::UsageSnapshot usage;
  usage.namespaceLabels["team-a"] = {{"env", "dev"}, {"team", "vision"}};
  RequestSpec s;
  s.dryRun = true;
  const ReviewResult r = review(reviewJson(s), Endpoint::Mutate, kPolicy, usage, &scripted);
  ASSERT_EQ(gCalls, 1);
  EXPECT_EQ(gSeen.operation, "CREATE");
  EXPECT_EQ(gSeen.namespaceName, "team-a");
  EXPECT_EQ(gSeen.namespaceLabels, (kube::Labels{{"env", "dev"}, {"team", "vision"}}));
  EXPECT_EQ(gSeen.userName, "alice");
  EXPECT_TRUE(gSeen.dryRun);
  EXPECT_EQ(gSeen.group, "");
  EXPECT_EQ(gSeen.kind, "Pod");
  EXPECT_EQ(r.namespaceName, "team-a");
  EXPECT_EQ(r.name, "p");
  EXPECT_EQ(r.userName, "alice");
  EXPECT_TRUE(r.dryRun);
  EXPECT_EQ(r.operation, "CREATE");
}

TEST_F(ReviewCodec, NamespaceAndNameFallBackToTheObject) {
  RequestSpec s;
  s.nameSpace = "";
  s.object = R"({"kind":"Pod","metadata":{"generateName":"job-x-","namespace":"ml"}})";
  const ReviewResult r = run(reviewJson(s));
  EXPECT_EQ(gSeen.namespaceName, "ml");
  EXPECT_EQ(r.namespaceName, "ml");
  EXPECT_EQ(r.name, "job-x-");
}

TEST_F(ReviewCodec, OnlyCreatesOfPodsAndWorkloadsReachTheEngine) {
  struct Case {
    std::string operation, group, kind;
    bool decided;
  };
  const Case cases[] = {
      {"CREATE", "", "Pod", true},
      {"UPDATE", "", "Pod", false},
      {"DELETE", "", "Pod", false},
      {"CONNECT", "", "Pod", false},
      {"CREATE", "apps", "Deployment", true},
      {"CREATE", "apps", "StatefulSet", true},
      {"CREATE", "apps", "DaemonSet", true},
      {"CREATE", "apps", "ReplicaSet", true},
      {"CREATE", "batch", "Job", true},
      {"CREATE", "batch", "CronJob", true},
      {"CREATE", "", "ReplicationController", true},
      {"CREATE", "", "PodTemplate", true},
      {"CREATE", "", "ConfigMap", false},
      {"CREATE", "kubeflow.org", "PyTorchJob", false},
      {"CREATE", "apps", "ControllerRevision", false},
      {"CREATE", "extensions", "Deployment", false},
  };
  for (const auto& c : cases) {
    SetUp();
    gNext.denial = engine::Denial{403, "Forbidden", "denied"};
    RequestSpec s;
    s.operation = c.operation;
    s.group = c.group;
    s.kind = c.kind;
    s.object = R"({"metadata":{"name":"x"}})";
    const ReviewResult r = run(reviewJson(s), Endpoint::Validate);
    ASSERT_EQ(r.httpStatus, 200) << c.kind << " " << r.body;
    EXPECT_EQ(gCalls, c.decided ? 1 : 0) << c.operation << " " << c.group << "/" << c.kind;
    EXPECT_EQ(r.decision.has_value(), c.decided);
    const auto d = parseBody(r.body);
    EXPECT_EQ(d["response"]["allowed"].GetBool(), !c.decided) << r.body;
    if (c.decided) {
      EXPECT_EQ(gSeen.group, c.group);
    }
  }
}

TEST_F(ReviewCodec, DeleteWithoutObjectPassesThrough) {
  RequestSpec s;
  s.operation = "DELETE";
  s.object = "";
  const ReviewResult r = run(reviewJson(s));
  EXPECT_EQ(r.httpStatus, 200);
  EXPECT_EQ(gCalls, 0);
  EXPECT_TRUE(parseBody(r.body)["response"]["allowed"].GetBool());
}

TEST_F(ReviewCodec, SubresourceCreatesPassThrough) {
  RequestSpec s;
  s.object = R"({"kind":"Pod","metadata":{"name":"x"}})";
  std::string body = reviewJson(s);
  body.insert(body.find(R"("operation")"), R"("subResource":"ephemeralcontainers",)");
  EXPECT_EQ(run(body).httpStatus, 200);
  EXPECT_EQ(gCalls, 0);
}

TEST_F(ReviewCodec, TemplateKindsFromThePolicyReachTheEngine) {
  policy::PolicySet p;
  p.templateKinds.push_back(
      {"kubeflow.org", "PyTorchJob", {"spec.pytorchReplicaSpecs.*.template"}, {}, {}});
  RequestSpec s;
  s.group = "kubeflow.org";
  s.kind = "PyTorchJob";
  s.object = R"({"kind":"PyTorchJob"})";
  review(reviewJson(s), Endpoint::Validate, p, kUsage, &scripted);
  EXPECT_EQ(gCalls, 1);
  EXPECT_EQ(gSeen.kind, "PyTorchJob");
}

// The namespace becomes a metric label and the uid is echoed and logged: a 200 KB namespace was
// accepted, kept as a series forever and logged verbatim.
TEST_F(ReviewCodec, NamesNoApiserverSendsAreRefused) {
  const auto refused = [&](RequestSpec s, const std::string& kind) {
    const ReviewResult r = run(reviewJson(s), Endpoint::Validate);
    EXPECT_EQ(r.httpStatus, 400) << r.body;
    EXPECT_EQ(r.errorKind, kind) << r.body;
    EXPECT_LT(r.body.size(), 400u) << "the message quotes the value cut short";
    EXPECT_FALSE(r.decision.has_value());
  };
  RequestSpec s;
  s.nameSpace = std::string(200 << 10, 'a');
  refused(s, "invalid-namespace");
  s.nameSpace = "Team_A";
  refused(s, "invalid-namespace");
  s.nameSpace = std::string(64, 'a');
  refused(s, "invalid-namespace");
  s = RequestSpec();
  s.uid = std::string(3 << 20, 'u');
  refused(s, "invalid-uid");
  s.uid = "a b";
  refused(s, "invalid-uid");

  s = RequestSpec();
  s.nameSpace = std::string(63, 'a');
  EXPECT_EQ(run(reviewJson(s), Endpoint::Validate).httpStatus, 200);
  s.uid = std::string(128, 'u');
  EXPECT_EQ(run(reviewJson(s), Endpoint::Validate).httpStatus, 200);
}

TEST_F(ReviewCodec, DenialIsAllowedFalseWithForbiddenStatus) {
  gNext.denial = engine::Denial{403, "Forbidden", "pod p: container c asks for\n9 GPUs"};
  gNext.patch = samplePatch();  // must not be sent with a denial
  for (Endpoint e : {Endpoint::Validate, Endpoint::Both}) {
    const ReviewResult r = run(reviewJson({}), e);
    ASSERT_EQ(r.httpStatus, 200);
    const auto d = parseBody(r.body);
    const auto& resp = d["response"];
    EXPECT_FALSE(resp["allowed"].GetBool());
    EXPECT_EQ(resp["status"]["code"].GetInt(), 403);
    EXPECT_STREQ(resp["status"]["reason"].GetString(), "Forbidden");
    EXPECT_STREQ(resp["status"]["message"].GetString(), "pod p: container c asks for 9 GPUs");
    EXPECT_FALSE(resp.HasMember("patch"));
    EXPECT_FALSE(resp.HasMember("patchType"));
  }
}

// The denial comes from /validate alone, so kubectl names validate-pods.gpu-admission.io (the
// webhook with failurePolicy Fail) whichever webhook the apiserver calls first. /mutate admits the
// pod unchanged and silent: /validate then judges the very pod /mutate saw.
TEST_F(ReviewCodec, MutateNeverDeniesItLeavesThePodUnchangedForValidate) {
  gNext.denial = engine::Denial{403, "Forbidden", "pod p: container c asks for 9 GPUs"};
  gNext.patch = samplePatch();
  gNext.warnings = {"gpu-admission: set class training"};
  gNext.auditAnnotations = {{"class", "training"}};
  const ReviewResult r = run(reviewJson({}), Endpoint::Mutate);
  ASSERT_EQ(r.httpStatus, 200);
  const auto d = parseBody(r.body);
  const auto& resp = d["response"];
  EXPECT_TRUE(resp["allowed"].GetBool()) << r.body;
  for (const char* member : {"status", "patch", "patchType", "warnings", "auditAnnotations"})
    EXPECT_FALSE(resp.HasMember(member)) << member << " in " << r.body;
  ASSERT_TRUE(r.decision.has_value());  // the server's metrics and log still see the verdict
  EXPECT_FALSE(r.decision->allowed());
}

TEST_F(ReviewCodec, MutateCarriesTheBase64PatchValidateNever) {
  gNext.outcome = engine::Decision::Outcome::Classified;
  gNext.patch = samplePatch();
  gNext.changes = {"class training"};
  gNext.warnings = {"gpu-admission: set class training"};
  for (Endpoint e : {Endpoint::Mutate, Endpoint::Both}) {
    const ReviewResult r = run(reviewJson({}), e);
    const auto d = parseBody(r.body);
    const auto& resp = d["response"];
    ASSERT_TRUE(resp.HasMember("patch")) << r.body;
    EXPECT_STREQ(resp["patchType"].GetString(), "JSONPatch");
    const auto decoded = kube::base64Decode(resp["patch"].GetString());
    ASSERT_TRUE(decoded.has_value());
    EXPECT_EQ(*decoded, engine::serializePatch(samplePatch()));
    rapidjson::Document patch;
    patch.Parse(decoded->data(), decoded->size());  // sized: no SIMD over-read
    ASSERT_TRUE(patch.IsArray());
    EXPECT_EQ(patch.Size(), 2u);
    EXPECT_EQ(resp["warnings"].Size(), 1u);
  }
  const ReviewResult v = run(reviewJson({}), Endpoint::Validate);
  const auto d = parseBody(v.body);
  EXPECT_FALSE(d["response"].HasMember("patch")) << v.body;
  EXPECT_FALSE(d["response"].HasMember("patchType")) << v.body;
  EXPECT_TRUE(d["response"]["allowed"].GetBool());
  // The pod was not mutated (the mutating webhook did not run): say so, do not claim changes.
  ASSERT_EQ(d["response"]["warnings"].Size(), 1u) << v.body;
  EXPECT_NE(
      std::string(d["response"]["warnings"][0].GetString()).find("not applied: class training"),
      std::string::npos);
}

TEST_F(ReviewCodec, EmptyPatchOmitsPatchFields) {
  gNext.outcome = engine::Decision::Outcome::NoGpu;
  const ReviewResult r = run(reviewJson({}), Endpoint::Mutate);
  const auto d = parseBody(r.body);
  EXPECT_FALSE(d["response"].HasMember("patch"));
  EXPECT_FALSE(d["response"].HasMember("patchType"));
  EXPECT_FALSE(d["response"].HasMember("warnings"));
  EXPECT_FALSE(d["response"].HasMember("auditAnnotations"));
}

TEST_F(ReviewCodec, ValidateWithoutPendingChangesForwardsEngineWarnings) {
  gNext.mode = policy::Mode::Warn;
  gNext.violations = {{"max-per-pod", "pod p asks for 9 GPUs (max 8)"}};
  gNext.warnings = {"[warn] pod p asks for 9 GPUs (max 8)"};
  const auto d = parseBody(run(reviewJson({}), Endpoint::Validate).body);
  ASSERT_EQ(d["response"]["warnings"].Size(), 1u);
  EXPECT_STREQ(d["response"]["warnings"][0].GetString(), "[warn] pod p asks for 9 GPUs (max 8)");
}

TEST_F(ReviewCodec, WarningsAreSanitized) {
  gNext.warnings = {"line one\nline two\x01", std::string(1000, 'x'), "", "\xff"};
  const auto d = parseBody(run(reviewJson({}), Endpoint::Mutate).body);
  const auto& w = d["response"]["warnings"];
  ASSERT_GT(w.Size(), 3u);  // the 1000 x's are cut and come as several lines
  EXPECT_STREQ(w[0].GetString(), "line one line two");
  for (const auto& line : w.GetArray()) EXPECT_LE(line.GetStringLength(), 120u);
  EXPECT_STREQ(w[w.Size() - 1].GetString(), "\xEF\xBF\xBD");
}

TEST_F(ReviewCodec, AuditAnnotationKeysAreMadeValid) {
  gNext.mode = policy::Mode::Audit;
  gNext.auditAnnotations = {{"class", "training"}, {"gpu-admission.io/violation", "quota"}};
  const auto d = parseBody(run(reviewJson({}), Endpoint::Validate).body);
  const auto& a = d["response"]["auditAnnotations"];
  ASSERT_TRUE(a.IsObject());
  EXPECT_STREQ(a["class"].GetString(), "training");
  EXPECT_STREQ(a["gpu-admission.io-violation"].GetString(), "quota");
  EXPECT_EQ(a.MemberCount(), 2u);
}

TEST_F(ReviewCodec, DryRunIsAnsweredTheSame) {
  gNext.patch = samplePatch();
  RequestSpec s;
  const std::string wet = run(reviewJson(s)).body;
  s.dryRun = true;
  EXPECT_EQ(run(reviewJson(s)).body, wet);
}

TEST_F(ReviewCodec, EngineExceptionBecomes500NamingTheUid) {
  RequestSpec s;
  s.uid = "uid-500";
  for (DecideFn f : {&throwing, &throwingNonStd}) {
    const ReviewResult r = review(reviewJson(s), Endpoint::Mutate, kPolicy, kUsage, f);
    EXPECT_EQ(r.httpStatus, 500);
    EXPECT_EQ(r.errorKind, "internal-error");
    EXPECT_NE(r.body.find("uid-500"), std::string::npos) << r.body;
    EXPECT_EQ(r.body.find('\n'), std::string::npos) << r.body;
    EXPECT_EQ(r.uid, "uid-500");
  }
  EXPECT_NE(review(reviewJson(s), Endpoint::Mutate, kPolicy, kUsage, &throwing)
                .body.find("boom second line"),
            std::string::npos);
}

TEST_F(ReviewCodec, LargeBodiesSpillOutOfTheArena) {
  RequestSpec s;
  std::string containers;
  for (int i = 0; i < 3000; ++i)
    containers +=
        std::string(i ? "," : "") + R"({"name":"c)" + std::to_string(i) +
        R"(","image":"registry.example.com/team/image:v1","env":[{"name":"A","value":"B"}]})";
  s.object =
      R"({"kind":"Pod","metadata":{"name":"big"},"spec":{"containers":[)" + containers + "]}}";
  ASSERT_GT(s.object.size(), 200'000u);
  const ReviewResult r = run(reviewJson(s));
  EXPECT_EQ(r.httpStatus, 200);
  EXPECT_EQ(gCalls, 1);
}

}  // namespace
}  // namespace gpua::admission
