// The command line every command shares (cli/command_line, on CLI11): --help made from the
// declared options, unknown options named with the option meant, bad values named with their
// flag, and the spellings callers use (short flags, --flag=value, repeats).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "cli_harness.hpp"

namespace gpua::cli::test {
namespace {

class CommandLineTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_.write("policies/policy.yaml", kTestPolicy);
    dir_.write("pod.json", kKubeflowWorkerPod);
  }
  RunResult run(const std::vector<std::string>& args) { return runCli(args, dir_.path()); }
  ScratchDir dir_;
};

// Each command's help names every flag it parses, with its value and an explanation.
TEST_F(CommandLineTest, HelpListsEveryFlag) {
  const std::vector<std::pair<std::vector<std::string>, std::vector<std::string>>> commands = {
      {{"review"},
       {"usage: gpu-admission review -f FILE", "-f, --file FILE", "-n, --namespace NS",
        "-l, --namespace-labels K=V,...", "-p, --policies PATH,...", "--usage-from FILE,...",
        "--usage-unavailable", "--nodes-from FILE,...", "--dra-from FILE,...", "--operation OP",
        "-o, --output text|json", "exit status: 0 admitted"}},
      {{"test"},
       {"usage: gpu-admission test [PATH...]", "-p, --policies PATH,...", "--run TEXT",
        "-v, --verbose", "exit status: 0 all passed"}},
      {{"whatif"},
       {"usage: gpu-admission whatif --pods", "--pods FILE", "--namespaces FILE",
        "-p, --policies PATH,...", "--usage-from FILE,...", "--nodes-from FILE,...",
        "--dra-from FILE,...", "-o, --output table|json", "WARNED counts pods"}},
      {{"status"},
       {"From the cluster (needs list on pods, namespaces and nodes):", "--kubeconfig FILE",
        "--context NAME", "--in-cluster", "From snapshot files (JSON or YAML):", "--pods FILE",
        "--nodes FILE", "--namespaces FILE", "--now TIME", "-o, --output table|json"}},
      {{"quotas", "render"},
       {"--policies PATH", "--namespaces FILE", "--namespace NS[=K=V,...]", "-o, --output FILE",
        "Exit status: 0 rendered"}},
      {{"compile"},
       {"usage: gpu-admission compile --to native", "--to TARGET", "--policies PATH",
        "-o, --output-dir DIR", "--explain", "Exit status: 0 written"}},
      {{"lint"}, {"usage: gpu-admission lint [DIR|FILE...]", "Exit status: 0 when"}},
      {{"version"}, {"usage: gpu-admission version", "-DGPUA_REVISION"}},
  };
  for (const auto& [command, lines] : commands) {
    auto args = command;
    args.push_back("--help");
    const auto r = run(args);
    EXPECT_EQ(r.exitCode, 0) << command[0] << r.err;
    for (const auto& line : lines)
      EXPECT_NE(r.out.find(line), std::string::npos) << command[0] << ": " << line << "\n" << r.out;
  }
}

TEST_F(CommandLineTest, UnknownOptionsNameTheOptionMeant) {
  auto r = run({"whatif", "--pod", "pods.json"});
  EXPECT_EQ(r.exitCode, 2);
  EXPECT_NE(r.err.find("gpu-admission whatif: unknown option --pod (did you mean --pods?)"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("usage: gpu-admission whatif"), std::string::npos) << r.err;
  // A misspelt required flag is reported as the typo, not as the missing flag.
  r = run({"review", "--fiel=pod.json"});
  EXPECT_EQ(r.exitCode, 2);
  EXPECT_NE(r.err.find("unknown option --fiel (did you mean --file?)"), std::string::npos) << r.err;
  r = run({"version", "now"});
  EXPECT_EQ(r.exitCode, 2);
  EXPECT_NE(r.err.find("unexpected argument 'now'"), std::string::npos) << r.err;
}

TEST_F(CommandLineTest, BadValuesNameTheirFlag) {
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"review", "-f", "pod.json", "-o", "xml"}, "--output: xml not in {text,json"},
      {{"review", "-f", "pod.json", "--operation", "create"}, "--operation: create not in"},
      {{"review", "-f", "pod.json", "-l", "team"}, "--namespace-labels: label \"team\" is not"},
      {{"review", "-f"}, "--file: 1 required FILE missing"},
      {{"review"}, "--file is required"},
      {{"whatif", "--pods", "pods.json", "-o", "yaml"}, "--output: yaml not in {table,json}"},
      {{"quotas", "render", "--namespace"}, "--namespace: 1 required"},
  };
  for (const auto& [args, message] : cases) {
    const auto r = run(args);
    EXPECT_EQ(r.exitCode, 2) << args[0] << " " << message;
    EXPECT_NE(r.err.find(message), std::string::npos) << message << "\n" << r.err;
  }
}

// What scripts and the live suites pass: short flags, --flag=value, a repeated flag (the last
// wins), repeatable flags, and positional paths before or after options.
TEST_F(CommandLineTest, SpellingsCallersUse) {
  auto r = run({"review", "--file=pod.json", "-n", "other", "-n", "team-a", "-l", "env=dev",
                "--policies=policies", "-o", "json"});
  EXPECT_EQ(r.exitCode, 0) << r.err;
  EXPECT_NE(r.out.find("\"mode\": \"warn\""), std::string::npos) << r.out;
  dir_.write("cases/cases.yaml",
             "cases:\n- {name: a, podFile: ../pod.json, expect: {class: training}}\n");
  r = run({"test", "-v", "cases", "--policies", "policies"});
  EXPECT_EQ(r.exitCode, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("ok   cases/cases.yaml:a"), std::string::npos) << r.out;
  r = run({"quotas", "render", "--policies", "policies", "--namespace", "team-a=env=dev",
           "--namespace", "team-b"});
  EXPECT_EQ(r.exitCode, 0) << r.err;
}

}  // namespace
}  // namespace gpua::cli::test
