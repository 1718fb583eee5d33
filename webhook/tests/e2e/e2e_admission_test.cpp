// Admission round trips through the real binary over TLS: patches that apply, denials that
// kubectl can print, validate-only answers, pass-through operations, the shipped example.
#include <filesystem>
#include <fstream>

#include "e2e_fixture.hpp"

namespace gpua::testing {
namespace {

const rapidjson::Value& responseOf(const rapidjson::Document& d) {
  return d["response"];
}

TEST_F(E2eTest, MutateReturnsAPatchThatAppliesCleanlyToThePod) {
  start();
  const auto pod = podJson(1);
  auto res = post("/mutate", reviewJson(pod, "uid-mutate-1"));
  ASSERT_EQ(res.status, 200) << res.body;
  EXPECT_EQ(res.contentType, "application/json");
  const auto doc = parseJson(res.body);
  ASSERT_FALSE(doc.HasParseError()) << res.body;
  EXPECT_STREQ(doc["apiVersion"].GetString(), "admission.k8s.io/v1");
  EXPECT_STREQ(doc["kind"].GetString(), "AdmissionReview");
  const auto& r = responseOf(doc);
  EXPECT_STREQ(r["uid"].GetString(), "uid-mutate-1");
  EXPECT_TRUE(r["allowed"].GetBool());
  ASSERT_TRUE(r.HasMember("patch")) << res.body;
  EXPECT_STREQ(r["patchType"].GetString(), "JSONPatch");

  const auto ops = parseJson(base64Decode(r["patch"].GetString()));
  ASSERT_TRUE(ops.IsArray()) << base64Decode(r["patch"].GetString());
  auto target = parseJson(pod);
  const auto error = engine::applyPatch(target, toPatch(ops));
  ASSERT_FALSE(error) << *error;
  const std::string patched = toJson(target);
  EXPECT_NE(patched.find("NVIDIA-H100-80GB-HBM3"), std::string::npos) << patched;
  EXPECT_NE(patched.find("\"tolerations\""), std::string::npos) << patched;
}

TEST_F(E2eTest, ValidateReturnsTheVerdictAndNeverAPatch) {
  start();
  auto res = post("/validate", reviewJson(podJson(1), "uid-validate"));
  ASSERT_EQ(res.status, 200);
  const auto doc = parseJson(res.body);
  const auto& r = responseOf(doc);
  EXPECT_STREQ(r["uid"].GetString(), "uid-validate");
  EXPECT_TRUE(r["allowed"].GetBool());
  EXPECT_FALSE(r.HasMember("patch"));
  EXPECT_FALSE(r.HasMember("patchType"));
}

TEST_F(E2eTest, DenialIs403ForbiddenInsideA200) {
  start();
  for (const std::string path : {"/validate", "/admit"}) {
    auto res = post(path, reviewJson(podJson(4), "uid-deny"));
    ASSERT_EQ(res.status, 200) << path;  // never deny with an HTTP error
    const auto doc = parseJson(res.body);
    const auto& r = responseOf(doc);
    EXPECT_FALSE(r["allowed"].GetBool()) << path << ": " << res.body;
    EXPECT_EQ(r["status"]["code"].GetInt(), 403) << path;
    EXPECT_STREQ(r["status"]["reason"].GetString(), "Forbidden") << path;
    EXPECT_FALSE(r.HasMember("patch")) << path;
    EXPECT_NE(std::string(r["status"]["message"].GetString()).find("trainer-0"), std::string::npos)
        << res.body;
  }
}

// Offload mode: the compiled policies installed beside the webhook deny the pod over the class's
// maximum (max-per-pod compiles) before the webhook is asked; the webhook does not judge it twice.
TEST_F(E2eTest, NativeOffloadLeavesTheCompiledRulesToTheApiserver) {
  start({"--native-offload", "true"});
  const std::string logs = logWith("native offload");
  EXPECT_NE(logs.find("max-per-pod"), std::string::npos) << logs;
  auto res = post("/validate", reviewJson(podJson(4), "uid-offload"));
  ASSERT_EQ(res.status, 200);
  const auto doc = parseJson(res.body);
  EXPECT_TRUE(responseOf(doc)["allowed"].GetBool()) << res.body;
}

// The apiserver calls /mutate first: were it to deny, kubectl would name the mutating webhook
// (failurePolicy Ignore) instead of validate-pods.gpu-admission.io, the one docs/ and the
// failure policies are written for.
TEST_F(E2eTest, MutateLeavesTheDenialToValidate) {
  start();
  const auto res = post("/mutate", reviewJson(podJson(4), "uid-deferred"));
  ASSERT_EQ(res.status, 200);
  const auto doc = parseJson(res.body);
  const auto& r = responseOf(doc);
  EXPECT_TRUE(r["allowed"].GetBool()) << res.body;
  EXPECT_FALSE(r.HasMember("status")) << res.body;
  EXPECT_FALSE(r.HasMember("patch")) << res.body;
  EXPECT_FALSE(r.HasMember("warnings")) << res.body;
  const auto text = metrics();
  EXPECT_NE(text.find("path=\"/mutate\",decision=\"deferred\""), std::string::npos) << text;
}

TEST_F(E2eTest, AdmitPathMutatesAndValidatesInOneResponse) {
  start();
  const auto doc = parseJson(post("/admit", reviewJson(podJson(1), "uid-admit")).body);
  EXPECT_TRUE(responseOf(doc)["allowed"].GetBool());
  EXPECT_TRUE(responseOf(doc).HasMember("patch"));
}

TEST_F(E2eTest, OperationsOtherThanCreateAreAllowedUnchanged) {
  start();
  for (const std::string op : {"UPDATE", "DELETE", "CONNECT"}) {
    auto res = post("/mutate", reviewJson(podJson(4), "uid-" + op, op));
    ASSERT_EQ(res.status, 200) << op << ": " << res.body;
    const auto doc = parseJson(res.body);
    EXPECT_TRUE(responseOf(doc)["allowed"].GetBool()) << op;
    EXPECT_FALSE(responseOf(doc).HasMember("patch")) << op;
  }
}

TEST_F(E2eTest, DryRunIsAnsweredTheSame) {
  start();
  const auto wet = parseJson(post("/mutate", reviewJson(podJson(1), "same-uid")).body);
  const auto dry =
      parseJson(post("/mutate", reviewJson(podJson(1), "same-uid", "CREATE", true)).body);
  EXPECT_EQ(toJson(wet), toJson(dry));
}

TEST_F(E2eTest, OneJsonLogLinePerDecisionWithoutEnvValues) {
  start();
  post("/mutate", reviewJson(podJson(1, "", "s3cr3t-value"), "uid-log-1"));
  post("/validate", reviewJson(podJson(4, "trainer-9", "s3cr3t-value"), "uid-log-2"));
  const auto logs = logWith("\"uid\":\"uid-log-2\"");
  EXPECT_EQ(logs.find("s3cr3t-value"), std::string::npos) << logs;
  int decisions = 0;
  std::istringstream lines(logs);
  for (std::string line; std::getline(lines, line);) {
    const auto d = parseJson(line);
    ASSERT_FALSE(d.HasParseError()) << line;
    if (std::string(d["msg"].GetString()) != "admission decision") continue;
    ++decisions;
    for (const char* field : {"time", "uid", "namespace", "name", "class", "decision", "reason",
                              "changes", "latency_us"})
      EXPECT_TRUE(d.HasMember(field)) << field << " missing in " << line;
    if (std::string(d["uid"].GetString()) == "uid-log-2") {
      EXPECT_STREQ(d["decision"].GetString(), "denied");
      EXPECT_STREQ(d["name"].GetString(), "trainer-9");
    }
  }
  EXPECT_EQ(decisions, 2) << logs;
}

TEST_F(E2eTest, GenerateNameStandsInForAMissingName) {
  start();
  std::string pod = podJson(1, "");
  pod.replace(pod.find("\"name\":\"\""), 9, "\"generateName\":\"job-abc-\"");
  post("/mutate", reviewJson(pod, "uid-gen"));
  const auto logs = logWith("\"name\":\"job-abc-\"");
  EXPECT_NE(logs.find("\"name\":\"job-abc-\""), std::string::npos) << logs;
}

TEST_F(E2eTest, ShippedPoliciesPatchTheExampleTrainingReview) {
  const std::string root = GPUA_REPO_ROOT;
  start({}, root + "/policies");
  std::ifstream in(root + "/deploy/examples/admission-review-training.json");
  const std::string body((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  ASSERT_FALSE(body.empty());
  auto res = post("/mutate", body);
  ASSERT_EQ(res.status, 200) << res.body;
  const auto doc = parseJson(res.body);
  const auto& r = responseOf(doc);
  EXPECT_TRUE(r["allowed"].GetBool());
  ASSERT_TRUE(r.HasMember("patch")) << res.body;
  const auto request = parseJson(body);
  rapidjson::Document pod;
  pod.CopyFrom(request["request"]["object"], pod.GetAllocator());
  const auto error =
      engine::applyPatch(pod, toPatch(parseJson(base64Decode(r["patch"].GetString()))));
  EXPECT_FALSE(error) << *error;
  EXPECT_NE(toJson(pod).find("gpu-training"), std::string::npos);
  // The banner tells the user exactly this request.
  EXPECT_NE(server_->err().find("--data @deploy/examples/admission-review-training.json"),
            std::string::npos);
}

TEST_F(E2eTest, CorpusPodsGetWellFormedAnswersWhosePatchesApply) {
  const std::filesystem::path corpus = std::string(GPUA_CORPUS_DIR) + "/pods";
  if (!std::filesystem::is_directory(corpus)) GTEST_SKIP() << "no corpus at " << corpus;
  start({}, std::string(GPUA_REPO_ROOT) + "/policies");
  auto c = client();  // one keep-alive connection for the whole corpus
  int n = 0;
  for (const auto& e : std::filesystem::directory_iterator(corpus)) {
    if (e.path().extension() != ".json") continue;
    const std::string pod = readFile(e.path());
    auto res = c.request("POST", "/mutate", reviewJson(pod, "corpus-" + std::to_string(++n)));
    ASSERT_EQ(res.status, 200) << e.path() << ": " << res.body;
    const auto doc = parseJson(res.body);
    ASSERT_TRUE(doc.IsObject() && doc.HasMember("response")) << res.body;
    const auto& r = responseOf(doc);
    if (!r.HasMember("patch")) continue;
    auto target = parseJson(pod);
    const auto error =
        engine::applyPatch(target, toPatch(parseJson(base64Decode(r["patch"].GetString()))));
    EXPECT_FALSE(error) << e.path() << ": " << *error;
  }
  EXPECT_GT(n, 0);
}

}  // namespace
}  // namespace gpua::testing
