// Engine and reloader faults through the real binary (the server and TLS faults have their own
// file): a policy entry that cannot be stat'ed, at start-up and on the next edit; the metric
// series that must stay bounded.
#include <algorithm>
#include <memory>
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

// A review as the fixture writes it, in namespace `ns`.
std::string reviewIn(const std::string& ns, const std::string& uid) {
  std::string r = reviewJson(podJson(1), uid);
  const std::string from = "\"namespace\":\"ml\"";
  std::string to = "\"namespace\":\"";  // appended: GCC 12 -O3 false -Wrestrict on "..." + s
  to.append(ns).append("\"");
  return r.replace(r.find(from), from.size(), to);
}

// The namespace label of requests_total and the logged uid came from the request unchecked: a
// 200 KB namespace was accepted (and kept as a series), 200,000 names made 200,000 series, and a
// 3 MB uid was logged verbatim.
TEST_F(E2eTest, RequestFieldsThatBecomeLabelsAndLogLinesAreBounded) {
  auto& server = start();
  auto c = client();
  const auto huge = c.request("POST", "/validate", reviewIn(std::string(100 << 10, 'n'), "u1"));
  EXPECT_EQ(huge.status, 400) << huge.body.substr(0, 200);
  EXPECT_NE(huge.body.find("not a namespace name"), std::string::npos);
  EXPECT_EQ(
      c.request("POST", "/validate", reviewJson(podJson(1), std::string(3 << 20, 'u'))).status,
      400);
  constexpr int kNamespaces = 2100;
  for (int i = 0; i < kNamespaces; ++i)
    ASSERT_EQ(c.request("POST", "/validate", reviewIn("ns-" + std::to_string(i), "r")).status, 200);
  const auto m = metrics();
  std::size_t series = 0;
  for (auto at = m.find("gpu_admission_requests_total{"); at != std::string::npos;
       at = m.find("gpu_admission_requests_total{", at + 1))
    ++series;
  EXPECT_LE(series, 2001u) << "one series per namespace up to the cap, then one for the rest";
  EXPECT_NE(m.find("namespace=\"_other\""), std::string::npos);
  server.signal(SIGTERM);
  ASSERT_EQ(server.waitExit(15s), 0);
  const auto log = server.out();
  std::size_t longest = 0;
  for (std::size_t start = 0, end; start < log.size(); start = end + 1) {
    end = log.find('\n', start);
    if (end == std::string::npos) end = log.size();
    longest = std::max(longest, end - start);
  }
  EXPECT_LT(longest, std::size_t{16} << 10) << "a request field was logged whole";
  server_.reset();
}

// Uploads that announce 8 MiB and send nothing held the whole 64 MiB buffer budget: every other
// review got a 503 for as long as they stalled.
TEST_F(E2eTest, StalledUploadsDoNotStarveReviews) {
  start();
  std::vector<std::unique_ptr<TlsTestClient>> stalled;
  for (int i = 0; i < 8; ++i) {
    stalled.push_back(newClient());
    stalled.back()->writeRaw(
        "POST /validate HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
        "Content-Length: 8388608\r\n\r\n");
  }
  std::this_thread::sleep_for(200ms);  // their headers are read
  auto c = client();
  for (int i = 0; i < 20; ++i) {
    const std::string uid = std::to_string(i);
    EXPECT_EQ(c.request("POST", "/validate", reviewJson(podJson(1), uid)).status, 200);
  }
}

}  // namespace
}  // namespace gpua::testing
