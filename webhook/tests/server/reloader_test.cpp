#include "server/reloader.hpp"

#include <gtest/gtest.h>

#include <cstdio>

#include "support/temp_dir.hpp"
#include "support/tls_test_client.hpp"

namespace gpua::server {
namespace {

using gpua::testing::TempDir;

std::string policyYaml(const std::string& gpu) {
  return "apiVersion: gpu-admission.io/v1\nkind: GpuPolicy\nmetadata: {name: r}\nspec:\n"
         "  pools:\n  - {name: p, gpu: " +
         gpu + ", sharing: exclusive, nodeSelector: {a: b}}\n";
}

class ReloaderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    gpua::testing::writeFile(dir_.path() / "policies" / "p.yaml", policyYaml("H100-80GB"));
    gpua::testing::generateDevCerts(GPUA_GEN_CERTS, dir_.file("tls"));
    targets_.policyPaths = {dir_.file("policies")};
    targets_.tls = {dir_.file("tls/server.crt"), dir_.file("tls/server.key"), ""};
    targets_.policy = std::make_shared<Snapshot<policy::PolicySet>>();
    auto tls = loadTlsContext(targets_.tls);
    ASSERT_TRUE(tls.context) << tls.error;
    targets_.tlsStore = std::make_shared<TlsContextStore>(tls.context);
    targets_.metrics = &metrics_;
    logFile_ = std::tmpfile();
    logger_ = std::make_unique<telemetry::JsonLogger>(logFile_);
    targets_.logger = logger_.get();
  }
  void TearDown() override { std::fclose(logFile_); }

  TempDir dir_;
  telemetry::Registry registry_;
  WebhookMetrics metrics_{registry_};
  std::FILE* logFile_ = nullptr;
  std::unique_ptr<telemetry::JsonLogger> logger_;
  ReloadTargets targets_;
};

TEST_F(ReloaderTest, GoodPolicySwapsBrokenPolicyKeepsTheLastGoodOne) {
  Reloader r(targets_, std::chrono::milliseconds(50));
  ASSERT_TRUE(r.reloadPolicies().empty());
  const auto first = targets_.policy->get();
  ASSERT_TRUE(first);
  EXPECT_EQ(metrics_.policyLastReloadSuccess.value(), 1);

  gpua::testing::writeFile(dir_.path() / "policies" / "p.yaml", policyYaml("NoSuchGpu"));
  r.pollOnce();
  EXPECT_EQ(targets_.policy->get(), first);
  EXPECT_EQ(metrics_.policyLastReloadSuccess.value(), 0);
  EXPECT_EQ(metrics_.policyReloads.with({"error"}).value(), 1);

  gpua::testing::writeFile(dir_.path() / "policies" / "p.yaml", policyYaml("A100-80GB"));
  r.pollOnce();
  const auto second = targets_.policy->get();
  EXPECT_NE(second, first);
  EXPECT_NE(second->revision, first->revision);
  EXPECT_EQ(metrics_.policyRevision.with({second->revision}).value(), 1);
  EXPECT_EQ(metrics_.policyRevision.with({first->revision}).value(), 0);
  r.pollOnce();  // nothing changed: no reload
  EXPECT_EQ(metrics_.policyReloads.with({"success"}).value(), 2);
}

TEST_F(ReloaderTest, BrokenCertificateKeepsTheCurrentContext) {
  Reloader r(targets_, std::chrono::milliseconds(50));
  const auto before = targets_.tlsStore->current();
  gpua::testing::writeFile(dir_.path() / "tls" / "server.key", "garbage");
  r.pollOnce();
  EXPECT_EQ(targets_.tlsStore->current(), before);
  gpua::testing::generateDevCerts(GPUA_GEN_CERTS, dir_.file("tls"));
  r.pollOnce();
  EXPECT_NE(targets_.tlsStore->current(), before);
  EXPECT_GT(metrics_.certificateExpiry.value(), 0);
}

TEST_F(ReloaderTest, ThePollingThreadPicksUpChanges) {
  Reloader r(targets_, std::chrono::milliseconds(20));
  r.start();
  gpua::testing::writeFile(dir_.path() / "policies" / "p.yaml", policyYaml("A100-80GB"));
  for (int i = 0; i < 200 && !targets_.policy->get(); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  r.stop();
  ASSERT_TRUE(targets_.policy->get());
  EXPECT_EQ(targets_.policy->get()->pools.at(0).gpu, "A100-80GB");
}

}  // namespace
}  // namespace gpua::server
