// A policy error or warning that points at the exact place in a policy file.
#pragma once

#include <string>
#include <vector>

namespace gpua::policy {

struct Diagnostic {
  std::string file;
  int line = 0;         // 1-based; 0 when unknown
  int column = 0;       // 1-based; 0 when unknown
  std::string keyPath;  // e.g. "spec.classes[1].pools[0]"
  std::string message;  // what is wrong
  std::string hint;     // what to do

  // "policies/cluster.yaml:12:7: spec.classes[1].pools[0]: unknown pool "x" (hint: ...)"
  std::string format() const;
};

// "a, b, c": a list of names in a diagnostic's message or hint.
std::string joinNames(const std::vector<std::string>& names);

}  // namespace gpua::policy
