// gpu-admission test [DIR|FILE...]: runs the declarative policy cases (policy-tests/*.yaml) and
// prints one FAIL line per broken expectation, then "N passed, M failed" as the last line.
//
// Exit status: 0 all passed, 1 some failed, 2 usage error or a policy that does not load.
#include <cstdio>

#include "authoring/test_runner.hpp"
#include "cli/cluster_files.hpp"
#include "cli/command_registry.hpp"
#include "cli/support_args.hpp"
#include "cli/support_command.hpp"
#include "cli/support_split.hpp"

namespace gpua::cli {
namespace {

constexpr const char* kUsage =
    "usage: gpu-admission test [PATH...] [options]\n"
    "\n"
    "Runs the declarative policy cases in PATH (a directory: every *.yaml/*.yml directly inside;\n"
    "or case files). Default PATH: policy-tests. See docs/policy-testing.md.\n"
    "\n"
    "  -p, --policies PATH,...  policy files or directories\n"
    "                           (default: the 'policies' directory next to the first PATH's\n"
    "                           directory, i.e. policy-tests/../policies)\n"
    "      --run TEXT           only cases whose name contains TEXT\n"
    "  -v, --verbose            print a line for passing cases too\n"
    "\n"
    "exit status: 0 all passed, 1 a case failed, 2 usage error or unloadable policy\n";

// One FAIL line per broken expectation (diff lines indented below it), as the suite runs.
class FailurePrinter final : public authoring::SuiteObserver {
 public:
  explicit FailurePrinter(bool verbose) : verbose_(verbose) {}

  void caseDone(const std::string& where,
                const std::vector<authoring::CheckFailure>& failures) override {
    for (const auto& f : failures) print(where + ": " + f.message, f.diff);
    if (failures.empty() && verbose_) std::printf("ok   %s\n", where.c_str());
  }
  void fileFailed(const std::string&,
                  const std::vector<authoring::CheckFailure>& problems) override {
    for (const auto& p : problems) print(p.message, p.diff);
  }

 private:
  static void print(const std::string& line, const std::vector<std::string>& diff) {
    std::printf("FAIL %s\n", line.c_str());
    for (const auto& d : diff) std::printf("    %s\n", d.c_str());
  }
  bool verbose_;
};

int test(const Args& args) {
  authoring::SuiteOptions options;
  options.paths = args.positional();
  if (options.paths.empty()) options.paths.push_back("policy-tests");
  if (args.has("--policies")) options.policies = splitList(*args.get("--policies"));
  options.filter = args.getOr("--run", "");
  FailurePrinter printer(args.has("--verbose"));
  const auto tally = authoring::runSuite(options, ClusterFileReader{}, printer);
  std::printf("%d passed, %d failed\n", tally.passed, tally.failed);
  return tally.failed > 0 ? 1 : 0;
}

int runTestCommand(int argc, char** argv) {
  Args args({"--policies", "--run"}, {"--help", "--verbose"},
            {{"-p", "--policies"}, {"-v", "--verbose"}, {"-h", "--help"}});
  return runParsedCommand("test", kUsage, args, argc, argv, &test);
}

const CommandRegistrar kTest{
    {"test", "run the declarative policy tests (policy-tests/)", &runTestCommand}};

}  // namespace
}  // namespace gpua::cli
