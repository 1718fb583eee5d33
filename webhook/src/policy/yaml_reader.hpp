// Strict, error-collecting access to yaml-cpp nodes. Every check reports a Diagnostic with the
// file, the 1-based line and column of the offending node and its key path, then lets the
// caller carry on, so one run of the loader reports as many problems as possible.
#pragma once

#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <initializer_list>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "policy/diagnostic.hpp"

namespace gpua::policy {

// Where something was written: for diagnostics raised after parsing (references, merging).
struct SourceLoc {
  std::string file;
  int line = 0;    // 1-based, 0 = unknown
  int column = 0;  // 1-based, 0 = unknown
  std::string keyPath;

  std::string where() const;  // "file:line:col" for "first defined at ..." hints
};

using Diagnostics = std::vector<Diagnostic>;

void report(Diagnostics& out, const SourceLoc& at, std::string message, std::string hint = "");

// Where a yaml-cpp mark is in its file. Each document is parsed alone, so its marks count lines
// from the document's start and `lineOffset` (the lines before it) is added back; marks are
// 0-based and -1 when unknown, a SourceLoc 1-based with 0 = unknown.
SourceLoc markLoc(const std::string& file, const YAML::Mark& mark, int lineOffset,
                  const std::string& keyPath);

class YamlReader {
 public:
  YamlReader(std::string file, Diagnostics& errors) : file_(std::move(file)), errors_(errors) {}

  const std::string& file() const { return file_; }
  // The lines of the file before the document being read (see markLoc).
  void setLineOffset(int lines) { lineOffset_ = lines; }
  SourceLoc loc(const YAML::Node& node, const std::string& keyPath) const;
  void error(const YAML::Node& node, const std::string& keyPath, std::string message,
             std::string hint = "");
  Diagnostics& diagnostics() { return errors_; }

  // Type checks: report "expected a mapping, got a list" and return false on mismatch.
  bool expectMap(const YAML::Node& node, const std::string& keyPath);
  bool expectList(const YAML::Node& node, const std::string& keyPath);

  // Scalars. Nullopt (after reporting) when the node has the wrong type or value.
  std::optional<std::string> string(const YAML::Node& node, const std::string& keyPath);
  std::optional<std::string> name(const YAML::Node& node, const std::string& keyPath);  // non-empty
  std::optional<int64_t> integer(const YAML::Node& node, const std::string& keyPath, int64_t min);
  std::optional<double> number(const YAML::Node& node, const std::string& keyPath, double min);
  std::optional<bool> boolean(const YAML::Node& node, const std::string& keyPath);

  // Containers of scalars. Invalid entries are reported and left out.
  std::vector<std::string> stringList(const YAML::Node& node, const std::string& keyPath);
  // Like stringList, but "" is a value (label values): entries need only be strings.
  std::vector<std::string> stringValues(const YAML::Node& node, const std::string& keyPath);
  std::map<std::string, std::string> stringMap(const YAML::Node& node, const std::string& keyPath);

  // One of `values` (by name); reports the allowed names with a nearest-match hint.
  template <typename E>
  std::optional<E> enumeration(const YAML::Node& node, const std::string& keyPath,
                               std::initializer_list<std::pair<const char*, E>> values) {
    auto text = string(node, keyPath);
    if (!text) return std::nullopt;
    std::vector<std::string> names;
    for (const auto& [n, v] : values) {
      if (*text == n) return v;
      names.emplace_back(n);
    }
    unknownValue(node, keyPath, *text, names);
    return std::nullopt;
  }

 private:
  void unknownValue(const YAML::Node& node, const std::string& keyPath, const std::string& text,
                    const std::vector<std::string>& allowed);

  std::string file_;
  int lineOffset_ = 0;
  Diagnostics& errors_;
};

// A mapping with a fixed set of keys. Construction reports a non-mapping node, unknown keys
// (with a nearest-key hint) and duplicate keys; get() then returns the value node or an
// undefined node when absent.
class MapReader {
 public:
  MapReader(YamlReader& reader, const YAML::Node& node, std::string keyPath,
            std::vector<std::string> knownKeys);

  bool valid() const { return valid_; }
  bool has(std::string_view key) const { return find(key) != nullptr; }
  YAML::Node get(std::string_view key) const;
  std::string path(std::string_view key) const;
  const std::string& path() const { return keyPath_; }
  const YAML::Node& node() const { return node_; }
  SourceLoc loc() const { return reader_.loc(node_, keyPath_); }
  SourceLoc loc(std::string_view key) const;

  // Reports "missing required field" (at the mapping) when absent; returns has(key).
  bool require(std::string_view key) const;

 private:
  const YAML::Node* find(std::string_view key) const;

  YamlReader& reader_;
  YAML::Node node_;
  std::string keyPath_;
  bool valid_ = false;
  std::vector<std::pair<std::string, YAML::Node>> entries_;
};

// keyPath of a list element: "spec.pools" + 2 -> "spec.pools[2]".
std::string indexPath(const std::string& keyPath, std::size_t index);

}  // namespace gpua::policy
