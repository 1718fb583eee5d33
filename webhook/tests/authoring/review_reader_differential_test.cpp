// The readers against their oracle, RapidJSON's reader building the whole document: the request
// path's scanner (kube/json_scanner.hpp) and the scanner keeping only the fields a policy can read
// (engine/pod/pod_fields.hpp). Every review of the shared corpus' pods (when GPUA_CORPUS exists),
// of every policy-tests case and of the benchmark's pods must get the same answer, byte for byte,
// from each, at every endpoint. A rule that reads a pod field missing from the table decides
// differently on the filtered pod, and fails here.
#include <gtest/gtest.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "admission/review.hpp"
#include "authoring/case_file.hpp"
#include "bench_inputs.hpp"
#include "kube/json.hpp"
#include "kube/json_parse.hpp"
#include "policy/loader.hpp"

namespace gpua::authoring {
namespace {

namespace fs = std::filesystem;
using admission::Endpoint;
using admission::ReviewReader;

std::string readFile(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string serialized(const rapidjson::Value& v) {
  rapidjson::StringBuffer out;
  rapidjson::Writer<rapidjson::StringBuffer> w(out);
  v.Accept(w);
  return std::string(out.GetString(), out.GetSize());
}

std::string jsonString(std::string_view s) {
  rapidjson::Value v(rapidjson::StringRef(s.data(), s.size()));
  return serialized(v);
}

// An AdmissionReview of `object` as the apiserver sends it: request.kind before the object.
std::string reviewOf(const rapidjson::Value& object, const std::string& nameSpace,
                     const std::string& operation) {
  std::string group, kind = "Pod";
  if (const auto* k = kube::json::member(object, "kind"); k && k->IsString()) kind = k->GetString();
  if (const auto* a = kube::json::member(object, "apiVersion"); a && a->IsString()) {
    const std::string apiVersion = a->GetString();
    if (auto slash = apiVersion.find('/'); slash != std::string::npos)
      group = apiVersion.substr(0, slash);
  }
  return R"({"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{)"
         R"("uid":"0b9f7c1e-5c3a-4d2e-9f1a-2b3c4d5e6f70","kind":{"group":)" +
         jsonString(group) + R"(,"version":"v1","kind":)" + jsonString(kind) +
         R"(},"resource":{"group":"","version":"v1","resource":"pods"},"namespace":)" +
         jsonString(nameSpace) + R"(,"operation":)" + jsonString(operation) +
         R"(,"userInfo":{"username":"differential","groups":["system:authenticated"]},)"
         R"("object":)" +
         serialized(object) + R"(,"oldObject":null,"dryRun":false}})";
}

// What the response does not show of a decision: the quota charge the reservations write, the
// review's explanation.
void expectSameDecision(const std::optional<engine::Decision>& a,
                        const std::optional<engine::Decision>& b) {
  ASSERT_EQ(a.has_value(), b.has_value());
  if (!a) return;
  EXPECT_EQ(a->outcome, b->outcome);
  EXPECT_EQ(a->className, b->className);
  EXPECT_EQ(a->reason, b->reason);
  EXPECT_EQ(a->changes, b->changes);
  EXPECT_EQ(a->gpuEquivalents, b->gpuEquivalents);
  EXPECT_EQ(a->quotaUnchecked, b->quotaUnchecked);
  EXPECT_EQ(a->priorityClass, b->priorityClass);
  ASSERT_EQ(a->violations.size(), b->violations.size());
  for (std::size_t i = 0; i < a->violations.size(); ++i)
    EXPECT_EQ(a->violations[i].message, b->violations[i].message);
  ASSERT_EQ(a->quotaCharge.has_value(), b->quotaCharge.has_value());
  if (!a->quotaCharge) return;
  EXPECT_EQ(a->quotaCharge->quotas, b->quotaCharge->quotas);
  EXPECT_EQ(a->quotaCharge->units, b->quotaCharge->units);
  EXPECT_EQ(a->quotaCharge->podUid, b->quotaCharge->podUid);
  EXPECT_EQ(a->quotaCharge->podName, b->quotaCharge->podName);
}

// Every reader's answers to `body` at every endpoint, compared byte for byte with the oracle's
// (RapidJSON's reader building the whole document).
void expectSameAnswers(const std::string& body, const policy::PolicySet& policy,
                       const engine::UsageSnapshot& usage) {
  for (Endpoint e : {Endpoint::Mutate, Endpoint::Validate, Endpoint::Both}) {
    const auto full =
        admission::review(body, e, policy, usage, engine::noSupply(), ReviewReader::FullDocument);
    for (ReviewReader reader : {ReviewReader::ScannedDocument, ReviewReader::PolicyFields}) {
      SCOPED_TRACE(reader == ReviewReader::PolicyFields ? "PolicyFields" : "ScannedDocument");
      const auto other = admission::review(body, e, policy, usage, engine::noSupply(), reader);
      ASSERT_EQ(other.httpStatus, full.httpStatus);
      ASSERT_EQ(other.errorKind, full.errorKind);
      ASSERT_EQ(other.body, full.body);
      ASSERT_EQ(other.name, full.name);
      ASSERT_EQ(other.namespaceName, full.namespaceName);
      ASSERT_EQ(other.userName, full.userName);
      expectSameDecision(other.decision, full.decision);
    }
  }
}

const policy::PolicySet& shipped() {
  static const auto loaded = policy::loadPolicyPaths({GPUA_POLICIES});
  return *loaded.policy;
}

// Usage in which the shipped rollout enforces (env=dev) and quotas bite (team=vision).
engine::UsageSnapshot usageFor(const std::string& nameSpace, const kube::Labels& labels) {
  engine::UsageSnapshot u;
  u.available = true;
  u.namespaceLabels[nameSpace] = labels;
  u.namespaces[nameSpace].gpuEquivalents = 3;
  return u;
}

std::string namespaceOf(const rapidjson::Value& object) {
  const auto ns = kube::json::path(object, "metadata", "namespace");
  return ns.empty() ? "default" : std::string(ns);
}

TEST(ReviewReaderDifferential, CorpusPods) {
  const fs::path dir = fs::path(GPUA_CORPUS) / "pods";
  if (!fs::is_directory(dir)) GTEST_SKIP() << "no corpus at " << dir;
  int count = 0;
  for (const auto& entry : fs::directory_iterator(dir)) {
    if (entry.path().extension() != ".json") continue;
    SCOPED_TRACE(entry.path().filename().string());
    rapidjson::Document pod;
    ASSERT_TRUE(kube::parseJson(readFile(entry.path()), pod).ok());
    const std::string ns = namespaceOf(pod);
    for (const auto& labels : {kube::Labels{{"env", "dev"}, {"team", "vision"}}, kube::Labels{}})
      expectSameAnswers(reviewOf(pod, ns, "CREATE"), shipped(), usageFor(ns, labels));
    ++count;
  }
  EXPECT_GT(count, 0);
}

TEST(ReviewReaderDifferential, PolicyTestCases) {
  const fs::path dir = GPUA_POLICY_TESTS;
  int count = 0;
  for (const auto& entry : fs::directory_iterator(dir)) {
    if (entry.path().extension() != ".yaml") continue;
    SCOPED_TRACE(entry.path().filename().string());
    const auto file = loadCaseFile(entry.path().string());
    ASSERT_TRUE(file.ok());
    const auto loaded = file.caseFile->policies.empty()
                            ? policy::loadPolicyPaths({GPUA_POLICIES})
                            : policy::loadPolicyPaths(file.caseFile->policies);
    ASSERT_TRUE(loaded.ok());
    for (const auto& c : file.caseFile->cases) {
      if (c.object == nullptr) continue;
      SCOPED_TRACE(c.name);
      const std::string ns = c.namespaceName.empty() ? namespaceOf(*c.object) : c.namespaceName;
      engine::UsageSnapshot usage = usageFor(ns, c.namespaceLabels);
      for (const auto& [name, figures] : c.usage.namespaces) usage.namespaces[name] = figures;
      expectSameAnswers(reviewOf(*c.object, ns, c.operation), *loaded.policy, usage);
      ++count;
    }
  }
  EXPECT_GT(count, 100);
}

TEST(ReviewReaderDifferential, BenchmarkPods) {
  for (auto size : {bench::PodSize::Small, bench::PodSize::Typical, bench::PodSize::Large}) {
    SCOPED_TRACE(bench::podSizeName(size));
    const std::string body = bench::admissionReviewJson(bench::podJson(size), "bench-uid");
    for (const auto& labels : {kube::Labels{{"env", "dev"}, {"team", "vision"}}, kube::Labels{}})
      expectSameAnswers(body, shipped(), usageFor("team-a", labels));
  }
}

// Orders and shapes the apiserver never sends still get the full document's answers: the
// object before request.kind, a doubled kind, a workload, mistyped fields, broken JSON.
TEST(ReviewReaderDifferential, UnusualEnvelopes) {
  const std::string pod =
      R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","namespace":"team-a","uid":"pu",)"
      R"("labels":{"training.kubeflow.org/job-name":"j"}},"spec":{"containers":[{"name":"c",)"
      R"("image":"i","resources":{"limits":{"nvidia.com/gpu":"2"}},"ports":[{"containerPort":1}]}],)"
      R"("hostNetwork":true,"tolerations":"not-a-list"}})";
  const std::string valid =
      R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"v","namespace":"team-a","uid":"vu",)"
      R"("labels":{"training.kubeflow.org/job-name":"j"}},"spec":{"containers":[{"name":"c",)"
      R"("image":"i","resources":{"limits":{"nvidia.com/gpu":"2"}}}]}})";
  const std::string head = R"({"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview",)";
  const std::string bodies[] = {
      head +
          R"("request":{"uid":"u","kind":{"group":"","kind":"Pod"},"operation":"CREATE",)"
          R"("namespace":"team-a","object":)" +
          valid + "}}",
      head + R"("request":{"uid":"u","object":)" + pod +
          R"(,"kind":{"group":"","kind":"Pod"},"operation":"CREATE","namespace":"team-a"}})",
      head +
          R"("request":{"uid":"u","kind":{"group":"","kind":"Pod"},"kind":{"kind":"Job"},)"
          R"("operation":"CREATE","namespace":"team-a","object":)" +
          pod + "}}",
      head +
          R"("request":{"uid":"u","kind":{"group":"","kind":"Pod","kind":"Pod"},)"
          R"("operation":"CREATE","namespace":"team-a","object":)" +
          pod + "}}",
      head +
          R"("request":{"uid":"u","kind":{"group":"apps","kind":"Deployment"},)"
          R"("operation":"CREATE","namespace":"team-a","object":{"apiVersion":"apps/v1",)"
          R"("kind":"Deployment","metadata":{"name":"d"},"spec":{"template":)" +
          pod + "}}}}",
      head + R"("request":{"uid":"u","kind":{"group":"","kind":"Pod"},"operation":"CREATE",)"
             R"("object":{"metadata":[],"spec":{"containers":{"a":1}}}}})",
      head +
          R"("request":{"uid":"u","kind":{"group":"","kind":"Pod"},"operation":"CREATE",)"
          R"("object":)" +
          pod.substr(0, pod.size() - 3) + "}",
      head + R"("request":{"uid":"u","kind":{"group":"","kind":"Pod"},"object":[[[[]]]]}})",
  };
  for (const auto& body : bodies) {
    SCOPED_TRACE(body);
    expectSameAnswers(body, shipped(), usageFor("team-a", {{"env", "dev"}, {"team", "vision"}}));
  }
}

}  // namespace
}  // namespace gpua::authoring
