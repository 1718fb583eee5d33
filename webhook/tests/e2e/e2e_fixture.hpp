// Shared set-up for the end-to-end tests: dev certificates, policy directories laid out like a
// Kubernetes ConfigMap volume, a server process per test, AdmissionReview builders and
// response readers.
#pragma once

#include <openssl/evp.h>
#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "engine/mutate/json_patch_apply.hpp"
#include "server_process.hpp"
#include "support/eventually.hpp"
#include "support/temp_dir.hpp"
#include "support/tls_test_client.hpp"

namespace gpua::testing {

// Enforcing policy: training pods (by label) go to an H100 pool, at most `maxPerPod` GPUs.
inline std::string trainingPolicy(int maxPerPod) {
  return R"(apiVersion: gpu-admission.io/v1
kind: GpuPolicy
metadata:
  name: e2e
spec:
  exempt:
    namespaces: [kube-system]
  pools:
  - name: train-h100
    gpu: H100-80GB
    sharing: exclusive
    nodeSelector:
      nvidia.com/gpu.product: NVIDIA-H100-80GB-HBM3
    taints:
    - {key: nvidia.com/gpu, effect: NoSchedule}
  classes:
  - name: training
    match:
      any:
      - labels: {gpu-admission.io/class: training}
    pools: [train-h100]
    gpus: {maxPerPod: )" +
         std::to_string(maxPerPod) + R"(}
  unclassifiedGpuPods: deny
  rollout:
  - mode: enforce
)";
}

inline std::string podJson(int gpus, const std::string& name = "trainer-0",
                           const std::string& secretEnv = "hunter2") {
  return R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":")" + name +
         R"(","namespace":"ml","labels":{"gpu-admission.io/class":"training"}},)"
         R"("spec":{"containers":[{"name":"main","image":"pytorch:2","env":[{"name":"TOKEN",)"
         R"("value":")" +
         secretEnv + R"("}],"resources":{"limits":{"nvidia.com/gpu":")" + std::to_string(gpus) +
         R"("}}}]}})";
}

inline std::string reviewJson(const std::string& object, const std::string& uid,
                              const std::string& operation = "CREATE", bool dryRun = false) {
  return R"({"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":")" +
         uid +
         R"(","kind":{"group":"","version":"v1","kind":"Pod"},)"
         R"("resource":{"group":"","version":"v1","resource":"pods"},"namespace":"ml",)"
         R"("operation":")" +
         operation + R"(","userInfo":{"username":"alice"},"dryRun":)" +
         (dryRun ? "true" : "false") + R"(,"object":)" + object + "}}";
}

inline rapidjson::Document parseJson(const std::string& text) {
  // RapidJSON's SSE2 whitespace skipping reads 16-byte blocks: parse a padded copy (ASan-clean).
  const std::string padded = text + std::string(16, ' ');
  rapidjson::Document d;
  d.Parse(padded.c_str(), padded.size());
  return d;
}

inline std::string base64Decode(const std::string& in) {
  std::string out(in.size(), '\0');
  const int n = EVP_DecodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                                reinterpret_cast<const unsigned char*>(in.data()),
                                static_cast<int>(in.size()));
  if (n < 0) return {};
  std::size_t len = static_cast<std::size_t>(n);
  for (std::size_t i = in.size(); i > 0 && in[i - 1] == '='; --i) --len;  // padding
  out.resize(len);
  return out;
}

inline std::string toJson(const rapidjson::Value& v) {
  rapidjson::StringBuffer sb;
  rapidjson::Writer<rapidjson::StringBuffer> w(sb);
  v.Accept(w);
  return sb.GetString();
}

// An RFC 6902 array as the engine's Patch type, for engine::applyPatch.
inline engine::Patch toPatch(const rapidjson::Value& ops) {
  engine::Patch patch;
  for (const auto& op : ops.GetArray()) {
    engine::PatchOp p;
    const std::string kind = op["op"].GetString();
    p.kind = kind == "add"      ? engine::PatchOp::Kind::Add
             : kind == "remove" ? engine::PatchOp::Kind::Remove
                                : engine::PatchOp::Kind::Replace;
    p.path = op["path"].GetString();
    if (op.HasMember("value")) p.valueJson = toJson(op["value"]);
    patch.push_back(p);
  }
  return patch;
}

// The AdmissionReview answer in `res` admits the object.
inline bool allowed(const ClientResponse& res) {
  const auto d = parseJson(res.body);
  return d.IsObject() && d.HasMember("response") && d["response"]["allowed"].GetBool();
}

class E2eTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    shared_ = new TempDir();
    generateDevCerts(GPUA_GEN_CERTS, shared_->file("certs"));
  }
  static void TearDownTestSuite() { delete shared_; }

  static std::string cert(const std::string& f) { return shared_->file("certs/" + f); }

  // Every test ends with a graceful shutdown: exit code 0 and no sanitizer report, whatever the
  // test threw at the server.
  void TearDown() override {
    if (!server_) return;
    server_->signal(SIGTERM);
    EXPECT_EQ(server_->waitExit(std::chrono::seconds(15)), 0) << server_->err();
    const auto err = server_->err();
    EXPECT_EQ(err.find("Sanitizer"), std::string::npos) << err;
    EXPECT_EQ(err.find("runtime error"), std::string::npos) << err;
  }

  // A policy directory laid out like a mounted ConfigMap: policy.yaml -> ..data/policy.yaml.
  std::string policyDir(const std::string& yaml) {
    const auto dir = work_.path() / "policies";
    writePolicyVersion(yaml);
    std::filesystem::create_symlink("..data/policy.yaml", dir / "policy.yaml");
    return dir.string();
  }
  // Publishes a new policy version the way kubelet does (..data symlink swap).
  void writePolicyVersion(const std::string& yaml) {
    const auto dir = work_.path() / "policies";
    const std::string version = "..v" + std::to_string(++policyVersion_);
    writeFile(dir / version / "policy.yaml", yaml);
    swapDataSymlink(dir, version);
  }

  // Starts the server on an ephemeral port with short reload/timeouts plus `extra` flags.
  ServerProcess& start(std::vector<std::string> extra = {}, std::string policies = {}) {
    if (policies.empty()) policies = policyDir(trainingPolicy(2));
    std::vector<std::string> args{"serve",
                                  "--policies",
                                  policies,
                                  "--tls-cert",
                                  certFile_.empty() ? cert("server.crt") : certFile_,
                                  "--tls-key",
                                  keyFile_.empty() ? cert("server.key") : keyFile_,
                                  "--listen",
                                  "127.0.0.1:0",
                                  "--threads",
                                  "2",
                                  "--reload-interval",
                                  "100ms"};
    // Tests that are not about shutdown exit at once; a later --shutdown-delay in `extra` wins.
    if (!defaultShutdownDelay_) args.insert(args.end(), {"--shutdown-delay", "0s"});
    args.insert(args.end(), extra.begin(), extra.end());
    server_ = std::make_unique<ServerProcess>(args, work_.path().string(), launcher_);
    port_ = server_->waitForPort();
    return *server_;
  }

  TlsTestClient client() {
    ClientOptions o;
    o.caFile = caFile_.empty() ? cert("ca.crt") : caFile_;
    return TlsTestClient(port_, o);
  }

  std::unique_ptr<TlsTestClient> newClient() {
    ClientOptions o;
    o.caFile = caFile_.empty() ? cert("ca.crt") : caFile_;
    return std::make_unique<TlsTestClient>(port_, o);
  }

  ClientResponse post(const std::string& path, const std::string& body) {
    return client().request("POST", path, body);
  }

  bool healthy() {
    try {
      return client().request("GET", "/healthz").status == 200;
    } catch (const std::exception&) {
      return false;
    }
  }

  std::string metrics() { return client().request("GET", "/metrics").body; }

  // The server's log once it contains `fragment` in a whole line (or after `timeout`): the
  // log is written asynchronously, within 100 ms of a line being logged.
  std::string logWith(const std::string& fragment,
                      std::chrono::milliseconds timeout = std::chrono::seconds(5)) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    for (;;) {
      auto logs = server_->out();
      const bool whole = logs.find(fragment) != std::string::npos && logs.back() == '\n';
      if (whole || std::chrono::steady_clock::now() >= deadline) return logs;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
  }

  static TempDir* shared_;
  TempDir work_;
  std::unique_ptr<ServerProcess> server_;
  bool defaultShutdownDelay_ = false;  // true: start() leaves --shutdown-delay at its default
  uint16_t port_ = 0;
  int policyVersion_ = 0;
  std::string certFile_, keyFile_, caFile_;
  std::vector<std::string> launcher_;  // runs the binary (taskset, prlimit); empty = directly
};

inline TempDir* E2eTest::shared_ = nullptr;

}  // namespace gpua::testing
