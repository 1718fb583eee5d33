// The JSON log of the real binary: written asynchronously, yet SIGTERM loses no line; levels
// and the sample rate decide which decisions are written.
#include <gtest/gtest.h>

#include <cstdlib>
#include <map>
#include <sstream>

#include "e2e_fixture.hpp"

namespace gpua::testing {
namespace {

using namespace std::chrono_literals;

// uid -> the level of its "admission decision" line; every line must be valid JSON.
std::map<std::string, std::string> decisionLevels(const std::string& logs) {
  std::map<std::string, std::string> out;
  std::istringstream lines(logs);
  for (std::string line; std::getline(lines, line);) {
    const auto d = parseJson(line);
    EXPECT_FALSE(d.HasParseError()) << line;
    if (d.HasParseError() || std::string(d["msg"].GetString()) != "admission decision") continue;
    out[d["uid"].GetString()] = d["level"].GetString();
  }
  return out;
}

class E2eLoggingTest : public E2eTest {
 protected:
  // One request of each kind: mutated, left alone (an UPDATE), denied (4 GPUs over the
  // class's 2), and a malformed one; then SIGTERM. Returns the whole log.
  std::string logOfEachKind(std::vector<std::string> flags) {
    auto& server = start(std::move(flags));
    auto c = client();
    EXPECT_EQ(c.request("POST", "/mutate", reviewJson(podJson(1), "mutated")).status, 200);
    EXPECT_EQ(c.request("POST", "/mutate", reviewJson(podJson(1), "alone", "UPDATE")).status, 200);
    EXPECT_EQ(c.request("POST", "/mutate", reviewJson(podJson(4), "denied")).status, 200);
    EXPECT_EQ(c.request("POST", "/mutate", "{not json").status, 400);
    server.signal(SIGTERM);
    EXPECT_EQ(server.waitExit(10s), 0) << server.err();
    return server.out();
  }
};

TEST_F(E2eLoggingTest, SigtermLosesNoQueuedLine) {
  auto& server = start();
  constexpr int kRequests = 300;
  auto c = client();
  for (int i = 0; i < kRequests; ++i) {
    const auto res =
        c.request("POST", "/mutate", reviewJson(podJson(1), "sig-" + std::to_string(i)));
    ASSERT_EQ(res.status, 200) << res.body;
  }
  // At once: the last lines are still queued (the timer writes every 100 ms).
  server.signal(SIGTERM);
  ASSERT_EQ(server.waitExit(10s), 0) << server.err();
  const auto logs = server.out();
  const auto levels = decisionLevels(logs);
  EXPECT_EQ(levels.size(), static_cast<std::size_t>(kRequests));
  for (int i = 0; i < kRequests; ++i)
    EXPECT_EQ(levels.count("sig-" + std::to_string(i)), 1u) << "sig-" << i << " lost";
  EXPECT_NE(logs.rfind("\"msg\":\"stopped\"}\n"), std::string::npos)
      << "the line logged last, after the server stopped, is written too";
}

TEST_F(E2eLoggingTest, InfoLogsMutationsAndDenialsButNotPodsLeftAlone) {
  const auto logs = logOfEachKind({});
  const auto levels = decisionLevels(logs);
  EXPECT_EQ(levels.count("alone"), 0u) << logs;
  EXPECT_EQ(levels.at("mutated"), "info");
  EXPECT_EQ(levels.at("denied"), "info");
  EXPECT_NE(logs.find("\"msg\":\"bad admission request\""), std::string::npos);
  EXPECT_NE(logs.find("\"logLevel\":\"info\""), std::string::npos) << "said at start-up";
}

TEST_F(E2eLoggingTest, DebugFromTheEnvironmentAlsoLogsPodsLeftAlone) {
  ::setenv("GPU_ADMISSION_LOG_LEVEL", "debug", 1);  // inherited by the server process
  const auto logs = logOfEachKind({});
  ::unsetenv("GPU_ADMISSION_LOG_LEVEL");
  const auto levels = decisionLevels(logs);
  ASSERT_EQ(levels.count("alone"), 1u) << logs;
  EXPECT_EQ(levels.at("alone"), "debug");
  EXPECT_EQ(levels.at("mutated"), "info");
  EXPECT_EQ(levels.at("denied"), "info");
}

TEST_F(E2eLoggingTest, WarnKeepsOnlyWarningsAndErrors) {
  const auto logs = logOfEachKind({"--log-level", "warn"});
  EXPECT_TRUE(decisionLevels(logs).empty()) << logs;
  EXPECT_EQ(logs.find("\"level\":\"info\""), std::string::npos) << logs;
  EXPECT_NE(logs.find("\"msg\":\"bad admission request\""), std::string::npos) << logs;
}

TEST_F(E2eLoggingTest, SampleRateZeroDropsRoutineLinesButNeverDenials) {
  const auto logs = logOfEachKind({"--log-sample-rate", "0"});
  const auto levels = decisionLevels(logs);
  EXPECT_EQ(levels.count("mutated"), 0u) << logs;
  EXPECT_EQ(levels.count("denied"), 1u) << logs;
}

TEST_F(E2eLoggingTest, DroppedLinesAreAMetric) {
  start();
  EXPECT_NE(metrics().find("gpu_admission_log_lines_dropped_total 0"), std::string::npos);
}

}  // namespace
}  // namespace gpua::testing
