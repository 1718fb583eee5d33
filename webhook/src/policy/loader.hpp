// Strict YAML -> PolicySet loading. Either every file loads and the merged set validates, or
// the result carries errors and no policy: a broken file never yields a half-loaded policy.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "policy/diagnostic.hpp"
#include "policy/policy_set.hpp"

namespace gpua::policy {

struct PolicySource {
  std::string fileName;  // used in diagnostics only
  std::string text;
};

struct LoadResult {
  std::shared_ptr<const PolicySet> policy;  // null when errors is non-empty
  std::vector<Diagnostic> errors;
  bool ok() const { return policy != nullptr; }
};

// Parses and merges the given sources (pure: no file access).
LoadResult loadPolicySources(const std::vector<PolicySource>& sources);

// Reads the files (directories: every *.yaml / *.yml directly inside, sorted by name) and calls
// loadPolicySources. Unreadable paths become diagnostics.
LoadResult loadPolicyPaths(const std::vector<std::string>& paths);

}  // namespace gpua::policy
