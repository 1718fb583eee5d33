// `gpu-admission lint`: errors refuse the policy with status 1; warnings are printed to stderr
// after the files they point into, and the policy still passes with status 0.
#include <gtest/gtest.h>

#include "cli_harness.hpp"

namespace gpua::cli::test {
namespace {

TEST(Lint, WarningsArePrintedAndDoNotFailThePolicy) {
  ScratchDir dir;
  dir.write("p/policy.yaml",
            "apiVersion: gpu-admission.io/v1\n"
            "kind: GpuPolicy\n"
            "metadata: {name: etl}\n"
            "spec:\n"
            "  cpuPools: [{name: etl, nodeSelector: {pool: etl}}]\n"
            "  classes:\n"
            "  - name: etl\n"
            "    match: {any: [{labelKeys: [etl]}]}\n"
            "    gpus: {request: forbidden}\n"
            "    cpuPools: [etl]\n"
            "    effects: require\n");
  const auto r = runCli({"lint", "p"}, dir.path());
  EXPECT_EQ(r.exitCode, 0) << r.err;
  EXPECT_NE(r.out.find("p: OK (1 files"), std::string::npos) << r.out;
  EXPECT_NE(r.err.find("warning: p/policy.yaml:7:5: spec.classes[0].effects: effects in require "
                       "mode (nodePlacement, toleration, priorityClass, runtimeClass, "
                       "resourceName) judge GPU pods only"),
            std::string::npos)
      << r.err;
}

TEST(Lint, ErrorsExitOne) {
  ScratchDir dir;
  dir.write("p/policy.yaml",
            "apiVersion: gpu-admission.io/v1\nkind: GpuPolicy\nmetadata: {name: x}\n"
            "spec: {fieldGuards: {forbidNodeNam: true}}\n");
  const auto r = runCli({"lint", "p"}, dir.path());
  EXPECT_EQ(r.exitCode, 1);
  EXPECT_NE(r.err.find("spec.fieldGuards.forbidNodeNam: unknown key 'forbidNodeNam' (hint: did "
                       "you mean 'forbidNodeName'?)"),
            std::string::npos)
      << r.err;
}

}  // namespace
}  // namespace gpua::cli::test
