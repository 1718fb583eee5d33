// gpu-admission test [DIR|FILE...]: runs the declarative policy cases (policy-tests/*.yaml) and
// prints one FAIL line per broken expectation, then "N passed, M failed" as the last line.
//
// Exit status: 0 all passed, 1 some failed, 2 usage error or a policy that does not load.
#include <cstdio>
#include <memory>

#include "authoring/test_runner.hpp"
#include "cli/cluster_files.hpp"
#include "cli/command_line.hpp"
#include "cli/command_registry.hpp"
#include "cli/native_cases.hpp"
#include "cluster/api_config.hpp"

namespace gpua::cli {
namespace {

// One FAIL line per broken expectation (diff lines indented below it), as the suite runs.
class FailurePrinter final : public authoring::SuiteObserver {
 public:
  FailurePrinter(bool verbose, NativeCases* native) : verbose_(verbose), native_(native) {}

  void caseDone(const std::string& where,
                const std::vector<authoring::CheckFailure>& failures) override {
    for (const auto& f : failures) print(where + ": " + f.message, f.diff);
    if (failures.empty() && verbose_) std::printf("ok   %s\n", where.c_str());
  }
  void fileFailed(const std::string&,
                  const std::vector<authoring::CheckFailure>& problems) override {
    for (const auto& p : problems) print(p.message, p.diff);
  }
  std::vector<authoring::CheckFailure> alsoCheck(const authoring::TestCase& c,
                                                 const policy::PolicySet& policy,
                                                 const authoring::ReviewReport& report) override {
    return native_ ? native_->check(c, policy, report) : std::vector<authoring::CheckFailure>{};
  }

 private:
  static void print(const std::string& line, const std::vector<std::string>& diff) {
    std::printf("FAIL %s\n", line.c_str());
    for (const auto& d : diff) std::printf("    %s\n", d.c_str());
  }
  bool verbose_;
  NativeCases* native_;
};

struct TestOptions {
  std::vector<std::string> paths;
  std::string policies, filter, nativeKubeconfig, nativeContext;
  bool verbose = false;
};

int test(const TestOptions& o, bool policiesGiven) {
  authoring::SuiteOptions options;
  options.paths = o.paths.empty() ? std::vector<std::string>{"policy-tests"} : o.paths;
  if (policiesGiven) options.policies = splitList(o.policies);
  options.filter = o.filter;
  std::unique_ptr<NativeCases> native;
  if (!o.nativeKubeconfig.empty())
    native = std::make_unique<NativeCases>(
        cluster::loadKubeconfig(o.nativeKubeconfig, o.nativeContext), o.verbose);
  FailurePrinter printer(o.verbose, native.get());
  const auto tally = authoring::runSuite(options, ClusterFileReader{}, printer);
  if (native) std::printf("%s\n", native->summary().c_str());
  std::printf("%d passed, %d failed\n", tally.passed, tally.failed);
  if (native && native->comparedNone()) {
    std::fprintf(stderr,
                 "gpu-admission test: --against-native compared no case (see the line "
                 "above)\n");
    return 1;
  }
  return tally.failed > 0 ? 1 : 0;
}

int runTestCommand(int argc, char** argv) {
  CommandLine cl(
      "test", "usage: gpu-admission test [PATH...] [options]",
      "Runs the declarative policy cases in PATH (a directory: every *.yaml/*.yml "
      "directly inside;\nor case files). Default PATH: policy-tests. See "
      "docs/policy-testing.md.\n",
      "exit status: 0 all passed, 1 a case failed, 2 usage error or unloadable policy\n");
  TestOptions o;
  CLI::App& app = cl.app();
  app.add_option("paths", o.paths, "case files and directories of them")->type_name("PATH");
  const CLI::Option* policies =
      app.add_option("-p,--policies", o.policies,
                     "policy files or directories\n"
                     "(default: the 'policies' directory next to the first PATH's\n"
                     "directory, i.e. policy-tests/../policies)")
          ->type_name("PATH,...");
  app.add_option("--run", o.filter, "only cases whose name contains TEXT")->type_name("TEXT");
  app.add_flag("-v,--verbose", o.verbose, "print a line for passing cases too");
  app.add_option("--against-native", o.nativeKubeconfig,
                 "also create each pod case (server-side dry run) in the cluster of\n"
                 "KUBECONFIG, which runs the compiled native policies alone, and fail\n"
                 "where its verdict differs from the webhook's beyond the rules the\n"
                 "compiler declares (a test control plane: it creates the cases'\n"
                 "namespaces). See docs/native-backstop.md")
      ->type_name("KUBECONFIG");
  app.add_option("--context", o.nativeContext, "the kubeconfig context for --against-native")
      ->type_name("NAME");
  return cl.run(argc, argv, [&] { return test(o, policies->count() > 0); });
}

const CommandRegistrar kTest{
    {"test", "run the declarative policy tests (policy-tests/)", &runTestCommand}};

}  // namespace
}  // namespace gpua::cli
