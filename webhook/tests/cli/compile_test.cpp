// `gpu-admission compile --to native`: the manifests, one file per object with -o, the
// rule-by-rule report with --explain, and the errors of a bad command line or policy.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>

#include "cli_harness.hpp"

namespace gpua::cli::test {
namespace {

TEST(Compile, WritesOneFilePerObjectIntoTheOutputDirectory) {
  ScratchDir dir;
  dir.write("p/policy.yaml", kTestPolicy);
  const auto r = runCli({"compile", "--to", "native", "--policies", "p", "-o", "out"}, dir.path());
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_TRUE(std::filesystem::exists(dir.path() / "out" / "validating-policy-warn.yaml"));
  EXPECT_TRUE(std::filesystem::exists(dir.path() / "out" / "validating-binding-warn.yaml"));
  EXPECT_NE(r.err.find("manifests written to out"), std::string::npos) << r.err;
}

TEST(Compile, StaticWritesOneDirectoryPerPluginAndTheirAdmissionConfiguration) {
  ScratchDir dir;
  dir.write("p/policy.yaml", kTestPolicy);
  const auto r =
      runCli({"compile", "--to", "native", "--static", "--policies", "p", "-o", "out"}, dir.path());
  ASSERT_EQ(r.exitCode, 0) << r.err;
  const auto out = dir.path() / "out";
  EXPECT_TRUE(std::filesystem::exists(out / "validating" / "validating-policy-warn.yaml"));
  EXPECT_FALSE(std::filesystem::exists(out / "validating-policy-warn.yaml"));
  // The apiserver wants absolute paths.
  std::ifstream in(out / "admission-configuration.yaml");
  const std::string config((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::string abs = std::filesystem::absolute(out).lexically_normal().string();
  EXPECT_NE(config.find("staticManifestsDir: \"" + abs + "/validating\""), std::string::npos)
      << config;
  EXPECT_NE(config.find("staticManifestsDir: \"" + abs + "/mutating\""), std::string::npos)
      << config;
}

TEST(Compile, StaticNeedsAnOutputDirectory) {
  ScratchDir dir;
  dir.write("p/policy.yaml", kTestPolicy);
  const auto r = runCli({"compile", "--to", "native", "--static", "--policies", "p"}, dir.path());
  EXPECT_EQ(r.exitCode, 2);
  EXPECT_NE(r.err.find("--static writes two directories"), std::string::npos) << r.err;
}

TEST(Compile, WithoutAnOutputDirectoryTheStreamGoesToStdout) {
  ScratchDir dir;
  dir.write("p/policy.yaml", kTestPolicy);
  const auto r = runCli({"compile", "--to", "native", "--policies", "p"}, dir.path());
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_NE(r.out.find("kind: \"ValidatingAdmissionPolicy\""), std::string::npos);
  EXPECT_NE(r.out.find("kind: \"ValidatingAdmissionPolicyBinding\""), std::string::npos);
  // One document per object.
  std::size_t documents = 0;
  for (std::size_t at = 0; (at = r.out.find("---\n", at)) != std::string::npos; at += 4)
    ++documents;
  std::size_t kinds = 0;
  for (std::size_t at = 0; (at = r.out.find("\nkind: ", at)) != std::string::npos; at += 7) ++kinds;
  EXPECT_EQ(documents, kinds);
}

TEST(Compile, ExplainListsEveryRuleCompiledOrNotWithWhy) {
  ScratchDir dir;
  dir.write("p/policy.yaml", kTestPolicy);
  const auto r = runCli({"compile", "--to", "native", "--explain", "--policies", "p"}, dir.path());
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_EQ(r.out.rfind("compiled into the apiserver (ValidatingAdmissionPolicy):\n  ", 0), 0u)
      << r.out;
  EXPECT_NE(r.out.find("\n  max-per-pod\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\n  quota: reads other objects"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("limitations of the compiled form:"), std::string::npos) << r.out;
}

TEST(Compile, AnUnknownTargetIsABadCommandLine) {
  ScratchDir dir;
  dir.write("p/policy.yaml", kTestPolicy);
  const auto r = runCli({"compile", "--to", "kyverno", "--policies", "p"}, dir.path());
  EXPECT_EQ(r.exitCode, 2);
  EXPECT_NE(r.err.find("--to: the only target is 'native', not 'kyverno'"), std::string::npos)
      << r.err;
}

TEST(Compile, TheTargetIsRequired) {
  ScratchDir dir;
  const auto r = runCli({"compile"}, dir.path());
  EXPECT_EQ(r.exitCode, 2);
  EXPECT_NE(r.err.find("--to"), std::string::npos) << r.err;
}

TEST(Compile, APolicyErrorExitsOneNamingThePlace) {
  ScratchDir dir;
  dir.write("p/policy.yaml",
            "apiVersion: gpu-admission.io/v1\nkind: GpuPolicy\nmetadata: {name: x}\n"
            "spec: {unclassifiedGpuPod: deny}\n");
  const auto r = runCli({"compile", "--to", "native", "--policies", "p"}, dir.path());
  EXPECT_EQ(r.exitCode, 1);
  EXPECT_NE(r.err.find("p/policy.yaml:4:"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace gpua::cli::test
