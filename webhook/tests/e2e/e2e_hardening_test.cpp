// Issue 10 faults through the real binary (the engine and reloader items; the server and TLS
// faults have their own file): a policy entry that cannot be stat'ed, at start-up and on the
// next edit; the metric series that must stay bounded.
#include <thread>

#include "e2e_fixture.hpp"

namespace gpua::testing {
namespace {

using namespace std::chrono_literals;
namespace fs = std::filesystem;

std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

TEST_F(E2eTest, APolicyEntryThatCannotBeStatedDoesNotKillTheServerOnTheNextEdit) {
  const auto dir = policyDir(trainingPolicy(2));
  start({}, dir);
  fs::create_symlink("loop.yaml", fs::path(dir) / "loop.yaml");  // stat: ELOOP
  writePolicyVersion(trainingPolicy(8));                         // the unrelated edit
  EXPECT_TRUE(eventually([this] {
    return metrics().find("gpu_admission_policy_last_reload_success 0") != std::string::npos;
  })) << server_->err();
  EXPECT_TRUE(healthy()) << server_->err();
  EXPECT_NE(server_->out().find("loop.yaml: cannot stat"), std::string::npos) << server_->out();
  fs::remove(fs::path(dir) / "loop.yaml");
  EXPECT_TRUE(eventually([this] {
    return metrics().find("gpu_admission_policy_last_reload_success 1") != std::string::npos;
  }));
}

TEST_F(E2eTest, APolicyEntryThatCannotBeStatedAtStartUpExitsOne) {
  const auto dir = policyDir(trainingPolicy(2));
  fs::create_symlink("loop.yaml", fs::path(dir) / "loop.yaml");
  ServerProcess p({"serve", "--policies", dir, "--tls-cert", cert("server.crt"), "--tls-key",
                   cert("server.key"), "--listen", "127.0.0.1:0"},
                  work_.path().string());
  EXPECT_EQ(p.waitExit(10s), 1) << p.err();
  const auto err = p.err();
  EXPECT_NE(err.find("gpu-admission serve: error: policy: "), std::string::npos) << err;
  EXPECT_NE(err.find("loop.yaml: cannot stat"), std::string::npos) << err;
  EXPECT_EQ(std::count(err.begin(), err.end(), '\n'), 1) << err;
}

TEST_F(E2eTest, OnlyTheRevisionInForceHasAPolicyRevisionSeries) {
  start();
  for (int max : {3, 4, 5}) {
    writePolicyVersion(trainingPolicy(max));
    const std::string want =
        "gpu_admission_policy_reload_total{result=\"success\"} " + std::to_string(max - 1);
    ASSERT_TRUE(eventually([&] { return metrics().find(want) != std::string::npos; })) << metrics();
  }
  EXPECT_EQ(count(metrics(), "gpu_admission_policy_revision_info{"), 1u) << metrics();
}

TEST_F(E2eTest, RequestsTotalIsLabelledByOutcomeAndTheNamespaceLabelCanBeDropped) {
  const auto dir = policyDir(trainingPolicy(2));
  start({}, dir);
  post("/mutate", reviewJson(podJson(1), "with-ns"));
  auto m = metrics();
  EXPECT_NE(m.find("gpu_admission_requests_total{path=\"/mutate\",decision=\"allowed\","
                   "class=\"training\",namespace=\"ml\",outcome=\"Classified\"} 1"),
            std::string::npos)
      << m;
  server_->signal(SIGTERM);
  ASSERT_EQ(server_->waitExit(15s), 0);
  server_.reset();
  start({"--metrics-namespace-label=false"}, dir);
  post("/mutate", reviewJson(podJson(1), "without-ns"));
  m = metrics();
  EXPECT_NE(m.find("gpu_admission_requests_total{path=\"/mutate\",decision=\"allowed\","
                   "class=\"training\",outcome=\"Classified\"} 1"),
            std::string::npos)
      << m;
  EXPECT_EQ(m.find("namespace=\"ml\""), std::string::npos) << m;
}

}  // namespace
}  // namespace gpua::testing
