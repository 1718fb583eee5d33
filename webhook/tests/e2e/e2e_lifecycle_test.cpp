// Lifecycle through the real binary: hot reload of policies and certificates without a
// restart, graceful SIGTERM, and one-line startup errors with exit code 1.
#include <openssl/bn.h>
#include <openssl/pem.h>
#include <openssl/x509.h>

#include <future>
#include <thread>

#include "e2e_fixture.hpp"

namespace gpua::testing {
namespace {

using namespace std::chrono_literals;
namespace fs = std::filesystem;

std::string serialOf(const std::string& certFile) {
  FILE* f = std::fopen(certFile.c_str(), "r");
  if (!f) return {};
  X509* x = PEM_read_X509(f, nullptr, nullptr, nullptr);
  std::fclose(f);
  if (!x) return {};
  BIGNUM* bn = ASN1_INTEGER_to_BN(X509_get0_serialNumber(x), nullptr);
  char* hex = BN_bn2hex(bn);
  std::string out = hex;
  OPENSSL_free(hex);
  BN_free(bn);
  X509_free(x);
  return out;
}

// A policy file truncated in place (its trailing rollout block cut off) still parses, and two
// polls later every namespace was enforced. Such a reload is held back; a written change of
// modes applies as before.
TEST_F(E2eTest, APolicyCutShortThatLosesItsRolloutIsHeldBack) {
  std::string warn = trainingPolicy(2);
  warn.replace(warn.find("- mode: enforce"), 15, "- mode: warn");
  start({}, policyDir(warn));
  const auto fourGpus = [this] { return allowed(post("/validate", reviewJson(podJson(4), "r"))); };
  ASSERT_TRUE(fourGpus()) << "warn mode admits";

  writePolicyVersion(warn.substr(0, warn.find("  rollout:")));
  EXPECT_TRUE(eventually([this] {
    return metrics().find("gpu_admission_policy_reload_total{result=\"suspect\"} 1") !=
           std::string::npos;
  })) << server_->out();
  EXPECT_TRUE(fourGpus()) << "the last good policy (warn) keeps serving";
  EXPECT_NE(metrics().find("gpu_admission_policy_last_reload_success 0"), std::string::npos);
  EXPECT_NE(server_->out().find("held back as suspect"), std::string::npos) << server_->out();

  writePolicyVersion(trainingPolicy(2));  // the section written: enforce on purpose
  EXPECT_TRUE(eventually([&] { return !fourGpus(); })) << server_->out();
}

TEST_F(E2eTest, PolicyHotReloadSwapsGoodPoliciesAndKeepsTheLastGoodOneOnErrors) {
  const auto dir = policyDir(trainingPolicy(2));
  start({}, dir);
  const auto fourGpus = [this] { return allowed(post("/validate", reviewJson(podJson(4), "r"))); };
  auto kept = client();  // a connection open across reloads must keep working
  ASSERT_EQ(kept.request("GET", "/healthz").status, 200);
  EXPECT_FALSE(fourGpus());

  writePolicyVersion(trainingPolicy(8));
  EXPECT_TRUE(eventually(fourGpus)) << server_->out();

  writePolicyVersion(
      "apiVersion: gpu-admission.io/v1\nkind: GpuPolicy\nmetadata: {name: e2e}\n"
      "spec:\n  pools:\n  - name: p\n    gpu: NoSuchGpu\n");
  EXPECT_TRUE(eventually([this] {
    return metrics().find("gpu_admission_policy_last_reload_success 0") != std::string::npos;
  })) << metrics();
  EXPECT_NE(metrics().find("gpu_admission_policy_reload_total{result=\"error\"} 1"),
            std::string::npos);
  EXPECT_TRUE(fourGpus()) << "the last good policy (maxPerPod 8) keeps serving";
  // The error is logged with the file and line.
  EXPECT_TRUE(eventually([this] {
    return server_->out().find("policy.yaml:") != std::string::npos;
  })) << server_->out();
  EXPECT_EQ(kept.request("GET", "/healthz").status, 200);

  writePolicyVersion(trainingPolicy(2));
  EXPECT_TRUE(eventually([&] { return !fourGpus(); }));
  EXPECT_NE(metrics().find("gpu_admission_policy_last_reload_success 1"), std::string::npos);
}

TEST_F(E2eTest, CertificateRotationWithoutRestart) {
  // A Secret-volume layout: tls.crt -> ..data/tls.crt, swapped by a ..data symlink rename.
  const auto tlsDir = work_.path() / "tls";
  const std::string v1 = (tlsDir / "..v1").string(), v2 = (tlsDir / "..v2").string();
  generateDevCerts(GPUA_GEN_CERTS, v1);
  generateDevCerts(GPUA_GEN_CERTS, v2);
  swapDataSymlink(tlsDir, "..v1");
  fs::create_symlink("..data/server.crt", tlsDir / "tls.crt");
  fs::create_symlink("..data/server.key", tlsDir / "tls.key");
  certFile_ = (tlsDir / "tls.crt").string();
  keyFile_ = (tlsDir / "tls.key").string();
  caFile_ = v1 + "/ca.crt";
  start();

  auto old = client();
  EXPECT_EQ(old.peerSerialHex(), serialOf(v1 + "/server.crt"));
  EXPECT_EQ(old.request("GET", "/healthz").status, 200);

  swapDataSymlink(tlsDir, "..v2");
  caFile_ = v2 + "/ca.crt";
  const auto expected = serialOf(v2 + "/server.crt");
  EXPECT_TRUE(eventually([&] {
    try {
      return client().peerSerialHex() == expected;
    } catch (const std::exception&) {
      return false;  // still the old certificate: the new CA does not trust it yet
    }
  })) << server_->out();
  EXPECT_EQ(old.request("GET", "/healthz").status, 200) << "open connections survive rotation";
}

TEST_F(E2eTest, SigtermFinishesRequestsInFlightAndExitsZero) {
  auto& server = start({"--shutdown-grace", "5s"});
  // Requests in flight: headers sent, bodies still on their way when SIGTERM arrives.
  const std::string body = reviewJson(podJson(1), "inflight");
  std::vector<std::unique_ptr<TlsTestClient>> clients;
  for (int i = 0; i < 4; ++i) {
    clients.push_back(newClient());
    clients.back()->writeRaw(
        "POST /mutate HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
        "Content-Length: " +
        std::to_string(body.size()) + "\r\n\r\n" + body.substr(0, 10));
  }
  auto idle = client();
  ASSERT_EQ(idle.request("GET", "/healthz").status, 200);
  std::this_thread::sleep_for(300ms);  // the server has read the headers: requests in flight
  server.signal(SIGTERM);
  std::this_thread::sleep_for(200ms);
  for (auto& c : clients) {
    c->writeRaw(body.substr(10));
    auto res = c->read();
    EXPECT_EQ(res.status, 200) << res.body;
    EXPECT_TRUE(allowed(res));
    EXPECT_FALSE(res.keepAlive);
  }
  EXPECT_TRUE(idle.closedByPeer());
  EXPECT_EQ(server.waitExit(5s), 0) << server.err() << server.out();
  EXPECT_NE(server.out().find("\"msg\":\"shutting down\""), std::string::npos);
}

TEST_F(E2eTest, ShutdownDelayReportsUnreadyWhileStillServingThenExitsZero) {
  auto& server = start({"--shutdown-delay", "2s", "--shutdown-grace", "5s"});
  ASSERT_EQ(client().request("GET", "/readyz").status, 200);
  auto kept = client();  // a kept-alive connection, like the apiserver's
  ASSERT_EQ(kept.request("GET", "/healthz").status, 200);
  const auto signalled = std::chrono::steady_clock::now();
  server.signal(SIGTERM);
  EXPECT_TRUE(eventually([this] { return client().request("GET", "/readyz").status == 503; }, 1s));
  const auto ready = client().request("GET", "/readyz");
  EXPECT_NE(ready.body.find("shutting down"), std::string::npos) << ready.body;
  // Still serving admission, on new and on kept-alive connections.
  EXPECT_TRUE(allowed(post("/mutate", reviewJson(podJson(1), "during-delay"))));
  const auto onKept =
      kept.request("POST", "/mutate", reviewJson(podJson(1), "kept"), "application/json");
  EXPECT_EQ(onKept.status, 200) << onKept.body;
  EXPECT_TRUE(allowed(onKept));
  EXPECT_LT(std::chrono::steady_clock::now() - signalled, 2s) << "checked within the delay";
  EXPECT_EQ(server.waitExit(10s), 0) << server.err() << server.out();
  EXPECT_GE(std::chrono::steady_clock::now() - signalled, 2s) << "not before the delay ended";
  EXPECT_NE(server.out().find("\"delayMs\":2000"), std::string::npos) << server.out();
}

struct StartupCase {
  std::string name;
  std::vector<std::string> args;  // after "serve"
  std::string message;            // fragment of the one-line error
};

TEST_F(E2eTest, StartupErrorsAreOneLineNamingTheProblemAndExitOne) {
  const auto policies = policyDir(trainingPolicy(2));
  writeFile(work_.path() / "bad" / "p.yaml", "apiVersion: gpu-admission.io/v1\nkind: Nope\n");
  const auto crt = cert("server.crt"), key = cert("server.key");
  generateDevCerts(GPUA_GEN_CERTS, work_.file("other"));
  // Occupy a port so the server cannot bind it.
  start({}, policies);
  const std::string busy = "127.0.0.1:" + std::to_string(port_);
  const std::vector<StartupCase> cases = {
      {"missing cert",
       {"--policies", policies, "--tls-cert", work_.file("none.crt"), "--tls-key", key},
       "none.crt"},
      {"unreadable key",
       {"--policies", policies, "--tls-cert", crt, "--tls-key", work_.file("none.key")},
       "none.key"},
      {"key not matching",
       {"--policies", policies, "--tls-cert", crt, "--tls-key", work_.file("other/server.key")},
       "does not match"},
      {"missing policy dir",
       {"--policies", work_.file("nope"), "--tls-cert", crt, "--tls-key", key},
       "nope"},
      {"broken policy",
       {"--policies", work_.file("bad"), "--tls-cert", crt, "--tls-key", key},
       "p.yaml"},
      {"port in use",
       {"--policies", policies, "--tls-cert", crt, "--tls-key", key, "--listen", busy},
       busy},
      {"bad listen",
       {"--policies", policies, "--tls-cert", crt, "--tls-key", key, "--listen", "nowhere"},
       "--listen"},
      {"missing flag", {"--policies", policies}, "--tls-cert"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    std::vector<std::string> args{"serve"};
    args.insert(args.end(), c.args.begin(), c.args.end());
    ServerProcess p(args, work_.path().string());
    EXPECT_EQ(p.waitExit(10s), 1);
    const auto err = p.err();
    EXPECT_NE(err.find("gpu-admission serve: error: "), std::string::npos) << err;
    EXPECT_NE(err.find(c.message), std::string::npos) << err;
    EXPECT_EQ(std::count(err.begin(), err.end(), '\n'), 1) << err;
  }
  EXPECT_TRUE(healthy()) << "the first server is unaffected";
}

}  // namespace
}  // namespace gpua::testing
