// `gpu-admission version` prints the project version and the revision recorded at configure
// time: the commit of this checkout when it has git, "unknown" otherwise.
#include <gtest/gtest.h>

#include <cstdio>
#include <regex>

#include "cli_harness.hpp"

namespace gpua::cli::test {
namespace {

// `git rev-parse --short=12 HEAD` of the source tree, or "" when there is no git checkout.
std::string gitHead() {
  const std::string cmd = "git -C '" GPUA_REPO_DIR "' rev-parse --short=12 HEAD 2>/dev/null";
  std::FILE* p = ::popen(cmd.c_str(), "r");
  if (!p) return {};
  char buf[64] = {};
  const bool got = std::fgets(buf, sizeof buf, p) != nullptr;
  const int rc = ::pclose(p);
  std::string out = got && rc == 0 ? buf : "";
  while (!out.empty() && (out.back() == '\n' || out.back() == '\r')) out.pop_back();
  return out;
}

TEST(Version, PrintsTheProjectVersionAndTheRevisionOfTheCheckout) {
  ScratchDir dir;
  const auto r = runCli({"version"}, dir.path());
  ASSERT_EQ(r.exitCode, 0) << r.err;
  std::smatch m;
  ASSERT_TRUE(std::regex_match(
      r.out, m, std::regex(R"(gpu-admission (\S+) \(revision ([A-Za-z0-9._+-]+)\)\n)")))
      << r.out;
  EXPECT_EQ(m[1].str(), GPUA_PROJECT_VERSION);
  const std::string head = gitHead();
  if (head.empty())
    EXPECT_EQ(m[2].str(), "unknown");
  else  // "-dirty" while tracked files are modified
    EXPECT_TRUE(m[2].str() == head || m[2].str() == head + "-dirty") << m[2] << " vs " << head;
}

TEST(Version, RefusesArguments) {
  ScratchDir dir;
  const auto r = runCli({"version", "--bogus"}, dir.path());
  EXPECT_EQ(r.exitCode, 2);
  EXPECT_NE(r.err.find("--bogus"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace gpua::cli::test
