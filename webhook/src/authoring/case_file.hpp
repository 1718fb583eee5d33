// Reading a case file (policy-tests/*.yaml, docs/policy-testing.md) through the policy loader's
// YAML reader, so a policy-test author gets what a policy author gets: every problem of the file
// at once, each as file:line:col: key.path: message, with "did you mean" for a misspelt key or
// value. A typo never turns an expectation into a silently skipped one, and one wrong case
// refuses the whole file.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "authoring/test_case.hpp"
#include "policy/diagnostic.hpp"

namespace gpua::authoring {

struct CaseFileResult {
  std::optional<CaseFile> caseFile;        // set when there are no errors
  std::vector<policy::Diagnostic> errors;  // in file order
  bool ok() const { return caseFile.has_value(); }
};

// Parses the text of the case file at `path`; relative paths in it (policies, podFile, usage
// and nodes files, patchedPod) resolve against its directory, and podFiles are read. A fixture
// file that cannot be read (or a podFile that does not parse) is no error of the file: it goes
// to TestCase::fixtureErrors of each case that names it, so only those cases fail.
CaseFileResult parseCaseFile(std::string_view text, const std::string& path);

// Reads `path` and parses it. A file that cannot be read is one error naming it.
CaseFileResult loadCaseFile(const std::string& path);

}  // namespace gpua::authoring
