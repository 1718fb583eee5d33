// gpu-admission test [DIR|FILE...]: runs the declarative policy cases (policy-tests/*.yaml) and
// prints one FAIL line per broken expectation, then "N passed, M failed" as the last line.
//
// Exit status: 0 all passed, 1 some failed, 2 usage error or a policy that does not load.
#include <cstdio>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <set>

#include "cli/command_registry.hpp"
#include "cli/support_args.hpp"
#include "cli/support_case.hpp"
#include "cli/support_case_check.hpp"
#include "cli/support_command.hpp"
#include "cli/support_context.hpp"
#include "cli/support_document.hpp"
#include "cli/support_split.hpp"

namespace gpua::cli {
namespace {

namespace fs = std::filesystem;

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

bool isYaml(const fs::path& p) {
  return p.extension() == ".yaml" || p.extension() == ".yml";
}

std::vector<std::string> caseFiles(const std::vector<std::string>& paths) {
  std::vector<std::string> files;
  for (const auto& p : paths) {
    std::error_code ec;
    if (fs::is_directory(p, ec)) {
      std::set<std::string> sorted;
      for (const auto& entry : fs::directory_iterator(p, ec))
        if (entry.is_regular_file() && isYaml(entry.path())) sorted.insert(entry.path().string());
      if (sorted.empty()) throw InputError(p + ": no *.yaml case files in this directory");
      files.insert(files.end(), sorted.begin(), sorted.end());
    } else if (fs::is_regular_file(p, ec)) {
      files.push_back(p);
    } else {
      throw InputError(p + ": no such file or directory");
    }
  }
  return files;
}

// policy-tests/ -> policies/ beside it; policy-tests/x.yaml -> the same.
std::string defaultPolicies(const std::string& firstPath) {
  fs::path p = fs::path(firstPath).lexically_normal();
  std::error_code ec;
  fs::path dir = fs::is_directory(p, ec) ? p : p.parent_path();
  if (dir.filename().empty()) dir = dir.parent_path();  // "policy-tests/" ends in a separator
  fs::path parent = dir.parent_path();
  return (parent.empty() ? fs::path("policies") : parent / "policies").string();
}

struct Tally {
  int passed = 0, failed = 0;
};

void printFailure(const std::string& where, const CheckFailure& f) {
  std::printf("FAIL %s: %s\n", where.c_str(), f.message.c_str());
  for (const auto& line : f.diff) std::printf("    %s\n", line.c_str());
}

// The policy a case file runs against: its own `policies:` when it names some (loaded once per
// distinct list), else the runner's.
class PolicyCache {
 public:
  explicit PolicyCache(std::vector<std::string> defaultPaths) : default_(std::move(defaultPaths)) {}
  const policy::PolicySet& get(const std::vector<std::string>& paths) {
    const auto& key = paths.empty() ? default_ : paths;
    auto it = loaded_.find(key);
    if (it == loaded_.end()) it = loaded_.emplace(key, loadPolicies(key)).first;
    return *it->second;
  }

 private:
  std::vector<std::string> default_;
  std::map<std::vector<std::string>, std::shared_ptr<const policy::PolicySet>> loaded_;
};

// A case file as read: the cases, or the one failure that stands for a file that does not
// parse (the rest of the suite still runs).
struct LoadedFile {
  std::string path;
  std::optional<CaseFile> cases;
  std::string error;
};

LoadedFile readFile(const std::string& path) {
  try {
    return {path, loadCaseFile(path), {}};
  } catch (const InputError& e) {
    return {path, std::nullopt, e.what()};
  }
}

void runFile(const LoadedFile& file, PolicyCache& policies, const Args& args, Tally& tally) {
  if (!file.cases) {
    std::printf("FAIL %s\n", file.error.c_str());
    ++tally.failed;
    return;
  }
  const CaseFile& cf = *file.cases;
  const policy::PolicySet* policy = nullptr;
  try {
    policy = &policies.get(cf.policies);
  } catch (const InputError& e) {
    if (cf.policies.empty()) throw;  // the runner's own policy: nothing can run
    std::printf("FAIL %s: %s\n", file.path.c_str(), e.what());
    ++tally.failed;
    return;
  }
  const std::string filter = args.getOr("--run", "");
  for (const auto& c : cf.cases) {
    if (!filter.empty() && c.name.find(filter) == std::string::npos) continue;
    const auto failures = checkCase(c, *policy);
    const std::string where = file.path + ":" + c.name;
    for (const auto& f : failures) printFailure(where, f);
    if (failures.empty()) {
      ++tally.passed;
      if (args.has("--verbose")) std::printf("ok   %s\n", where.c_str());
    } else {
      ++tally.failed;
    }
  }
}

// The runner's policy is needed when it was asked for, or when some case file names none of
// its own; a suite whose files all bring their policy runs without a policies/ directory.
bool needsDefaultPolicy(const std::vector<LoadedFile>& files, const Args& args) {
  if (args.has("--policies")) return true;
  for (const auto& f : files)
    if (f.cases && f.cases->policies.empty()) return true;
  return false;
}

int test(const Args& args) {
  std::vector<std::string> paths = args.positional();
  if (paths.empty()) paths.push_back("policy-tests");
  std::vector<LoadedFile> files;
  for (const auto& path : caseFiles(paths)) files.push_back(readFile(path));
  const auto policyPaths = args.has("--policies") ? splitList(*args.get("--policies"))
                                                  : std::vector{defaultPolicies(paths.front())};
  PolicyCache policies(policyPaths);
  // A broken default policy is a usage error (exit 2), not a test failure.
  if (needsDefaultPolicy(files, args)) policies.get({});
  Tally tally;
  for (const auto& f : files) runFile(f, policies, args, tally);
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
