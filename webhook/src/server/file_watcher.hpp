// Detects changes to a set of files and directories by polling their content.
//
// Kubernetes ConfigMap/Secret volumes update by swapping a `..data` symlink, so a file's inode,
// path and even mtime can stay put while its content changes (and vice versa). Hashing the
// content of every watched file is cheap for policies and certificates and catches all cases.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace gpua::server {

// A hash of everything the paths resolve to: for a file, its content; for a directory, the
// names and content of the *.yaml / *.yml files directly inside (hidden entries such as
// `..data` are skipped, the files that link through them are followed). Unreadable or missing
// paths hash to a distinct marker, so a file that disappears or reappears is a change too.
uint64_t fingerprintPaths(const std::vector<std::string>& paths);

class FileWatcher {
 public:
  explicit FileWatcher(std::vector<std::string> paths);

  // True when the fingerprint differs from the one seen by the previous call (or construction).
  bool changed();

  const std::vector<std::string>& paths() const { return paths_; }

 private:
  std::vector<std::string> paths_;
  uint64_t last_;
};

}  // namespace gpua::server
