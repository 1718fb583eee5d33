// `gpu-admission test` without the printing: finds the case files, loads each case's policy
// (the file's own `policies:` or the runner's, each distinct list once), runs every case through
// checkCase and tells an observer what happened, case by case, so the command can print as the
// suite goes and a test can collect.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "authoring/case_checks.hpp"
#include "authoring/cluster_snapshots.hpp"

namespace gpua::authoring {

struct SuiteOptions {
  std::vector<std::string> paths;  // case files and directories of them
  // The runner's policy; nullopt: the `policies` directory beside the first path's directory.
  std::optional<std::vector<std::string>> policies;
  std::string filter;  // only cases whose name contains it; "" = all
};

class SuiteObserver {
 public:
  virtual ~SuiteObserver() = default;
  // One case ran; `failures` is empty when it passed. `where` is "file:case name".
  virtual void caseDone(const std::string& where, const std::vector<CheckFailure>& failures) = 0;
  // None of the file's cases could run (it does not parse, or its own policy does not load).
  // Each problem's message is a whole line that names the file.
  virtual void fileFailed(const std::string& file, const std::vector<CheckFailure>& problems) = 0;
  // More checks of a case the runner reviewed (`test --against-native`), given the webhook's
  // answer `report`: their failures count as the case's. None by default.
  virtual std::vector<CheckFailure> alsoCheck(const TestCase&, const policy::PolicySet&,
                                              const ReviewReport&) {
    return {};
  }
};

// A failed file counts as one failure.
struct SuiteTally {
  int passed = 0, failed = 0;
};

// Throws InputError for a path that is neither a file nor a directory of *.yaml/*.yml files,
// and PolicyLoadError when the runner's own policy is needed (asked for, or some case file names
// none of its own) and does not load: then no case runs.
SuiteTally runSuite(const SuiteOptions& options, const SnapshotReader& files,
                    SuiteObserver& observer);

// The case files of `paths` in run order: a directory gives every *.yaml/*.yml directly inside
// it, by name. Throws InputError as runSuite does.
std::vector<std::string> caseFiles(const std::vector<std::string>& paths);

// The runner's default policy for a suite whose first path is `firstPath`: policy-tests/ and
// policy-tests/x.yaml both give policies/ beside policy-tests/.
std::string defaultPolicies(const std::string& firstPath);

}  // namespace gpua::authoring
