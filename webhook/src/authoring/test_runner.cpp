#include "authoring/test_runner.hpp"

#include <filesystem>
#include <map>
#include <memory>
#include <set>

#include "authoring/case_file.hpp"
#include "authoring/policy_files.hpp"

namespace gpua::authoring {
namespace {

namespace fs = std::filesystem;

bool isYaml(const fs::path& p) {
  return p.extension() == ".yaml" || p.extension() == ".yml";
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

// A case file as read: the cases, or the problems that stand for a file that does not parse
// (the rest of the suite still runs).
struct LoadedFile {
  std::string path;
  std::optional<CaseFile> cases;
  std::vector<CheckFailure> problems;
};

LoadedFile readFile(const std::string& path) {
  CaseFileResult read = loadCaseFile(path);
  LoadedFile file{path, std::move(read.caseFile), {}};
  for (const auto& d : read.errors) file.problems.push_back({d.format(), {}});
  return file;
}

// The file's own policy failing fails the file; the runner's own failing stops the suite.
const policy::PolicySet* policyOf(const LoadedFile& file, PolicyCache& policies,
                                  SuiteObserver& observer) {
  const CaseFile& cf = *file.cases;
  try {
    return &policies.get(cf.policies);
  } catch (const PolicyLoadError& e) {
    if (cf.policies.empty()) throw;
    std::vector<std::string> lines;
    for (const auto& d : e.diagnostics()) lines.push_back(d.format());
    observer.fileFailed(file.path, {{file.path + ": " + e.what(), lines}});
    return nullptr;
  }
}

void runFile(const LoadedFile& file, PolicyCache& policies, const SuiteOptions& options,
             const SnapshotReader& files, SuiteObserver& observer, SuiteTally& tally) {
  if (!file.cases) {
    observer.fileFailed(file.path, file.problems);
    ++tally.failed;
    return;
  }
  const policy::PolicySet* policy = policyOf(file, policies, observer);
  if (!policy) {
    ++tally.failed;
    return;
  }
  for (const auto& c : file.cases->cases) {
    if (!options.filter.empty() && c.name.find(options.filter) == std::string::npos) continue;
    const auto failures = checkCase(c, *policy, files, [&](const ReviewReport& report) {
      return observer.alsoCheck(c, *policy, report);
    });
    observer.caseDone(file.path + ":" + c.name, failures);
    ++(failures.empty() ? tally.passed : tally.failed);
  }
}

// The runner's policy is needed when it was asked for, or when some case file names none of
// its own; a suite whose files all bring their policy runs without a policies/ directory.
bool needsDefaultPolicy(const std::vector<LoadedFile>& files, const SuiteOptions& options) {
  if (options.policies) return true;
  for (const auto& f : files)
    if (f.cases && f.cases->policies.empty()) return true;
  return false;
}

}  // namespace

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

std::string defaultPolicies(const std::string& firstPath) {
  fs::path p = fs::path(firstPath).lexically_normal();
  std::error_code ec;
  fs::path dir = fs::is_directory(p, ec) ? p : p.parent_path();
  if (dir.filename().empty()) dir = dir.parent_path();  // "policy-tests/" ends in a separator
  fs::path parent = dir.parent_path();
  return (parent.empty() ? fs::path("policies") : parent / "policies").string();
}

SuiteTally runSuite(const SuiteOptions& options, const SnapshotReader& files,
                    SuiteObserver& observer) {
  if (options.paths.empty()) throw InputError("no case files or directories given");
  std::vector<LoadedFile> loaded;
  for (const auto& path : caseFiles(options.paths)) loaded.push_back(readFile(path));
  PolicyCache policies(options.policies ? *options.policies
                                        : std::vector{defaultPolicies(options.paths.front())});
  // A broken default policy is the caller's error (a usage error), not a test failure.
  if (needsDefaultPolicy(loaded, options)) policies.get({});
  SuiteTally tally;
  for (const auto& f : loaded) runFile(f, policies, options, files, observer, tally);
  return tally;
}

}  // namespace gpua::authoring
