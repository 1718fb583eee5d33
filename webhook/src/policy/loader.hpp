// Strict YAML -> PolicySet loading. Either every file loads and the merged set validates, or
// the result carries errors and no policy: a broken file never yields a half-loaded policy.
#pragma once

#include <cstdint>
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
  // Parts of a policy that loaded but do nothing its author may think they do (lint prints
  // them; they never refuse a policy). Empty when errors is not.
  std::vector<Diagnostic> warnings;
  bool ok() const { return policy != nullptr; }
};

// Parses and merges the given sources (pure: no file access), within the limits of
// policy/source_limits.hpp: a source, or the sum of them, over its byte limit, a file of too
// many documents or a load of too many YAML nodes (aliases expanded) is a diagnostic.
LoadResult loadPolicySources(const std::vector<PolicySource>& sources);

// The policy files as read at one moment: what a load parses and what a reload compares.
struct PolicyFiles {
  std::vector<PolicySource> sources;
  std::vector<Diagnostic> errors;  // paths that could not be listed, stat'ed or read
  // FNV-1a over every file name and byte, and the errors: equal when a new read saw the same.
  uint64_t fingerprint() const;
};

// Reads the files (directories: every *.yaml / *.yml directly inside, sorted by name; hidden
// entries are skipped). Never throws: an entry that cannot be stat'ed (a symlink loop, a
// permission denied) or read is a diagnostic naming it, and so is a file over the byte limits
// (checked on its size before it is read, and read no further than the limit); once the bytes
// of all files pass their limit, no more files are read.
PolicyFiles readPolicyPaths(const std::vector<std::string>& paths);

// Loads exactly the bytes read (pure). Any read error refuses the whole set.
LoadResult loadPolicyFiles(const PolicyFiles& files);

// readPolicyPaths then loadPolicyFiles.
LoadResult loadPolicyPaths(const std::vector<std::string>& paths);

}  // namespace gpua::policy
