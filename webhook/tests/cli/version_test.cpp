// `gpu-admission version` prints the project version and the revision recorded at configure
// time: a commit of this checkout when it has git, "unknown" otherwise.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <regex>
#include <sstream>

#include "cli_harness.hpp"

namespace gpua::cli::test {
namespace {

// Whether the source tree is a git checkout (then the revision is a commit, else "unknown").
bool sourceIsGitCheckout() {
  const std::string cmd = "git -C '" GPUA_REPO_DIR "' rev-parse --git-dir >/dev/null 2>&1";
  return std::system(cmd.c_str()) == 0;
}

// The revision CMake recorded at configure time (the generated build_info.hpp). Comparing with
// git HEAD instead would fail after every commit until the next configure; how the revision is
// derived from git is tested by build_revision_test.cmake against a scratch repository.
std::string configuredRevision() {
  std::ifstream in(GPUA_BUILD_INFO_HEADER);
  std::stringstream text;
  text << in.rdbuf();
  std::smatch m;
  const std::string s = text.str();
  if (!std::regex_search(s, m, std::regex(R"re(kBuildRevision = "([^"]*)")re"))) return {};
  return m[1];
}

TEST(Version, PrintsTheProjectVersionAndTheConfiguredRevision) {
  ScratchDir dir;
  const auto r = runCli({"version"}, dir.path());
  ASSERT_EQ(r.exitCode, 0) << r.err;
  std::smatch m;
  ASSERT_TRUE(std::regex_match(
      r.out, m, std::regex(R"(gpu-admission (\S+) \(revision ([A-Za-z0-9._+-]+)\)\n)")))
      << r.out;
  EXPECT_EQ(m[1].str(), GPUA_PROJECT_VERSION);
  EXPECT_EQ(m[2].str(), configuredRevision());
  if (sourceIsGitCheckout())
    EXPECT_TRUE(std::regex_match(m[2].str(), std::regex("[0-9a-f]{12}(-dirty)?"))) << m[2];
  else
    EXPECT_EQ(m[2].str(), "unknown");
}

TEST(Version, RefusesArguments) {
  ScratchDir dir;
  const auto r = runCli({"version", "--bogus"}, dir.path());
  EXPECT_EQ(r.exitCode, 2);
  EXPECT_NE(r.err.find("--bogus"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace gpua::cli::test
