// A small YAML tree for the compiled manifests, written in one deterministic form: keys in the
// order they were added, every string scalar double-quoted (JSON escaping is valid YAML), so the
// same policy always gives the same bytes and no CEL text can be misread as YAML syntax.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace gpua::native {

class Yaml {
 public:
  static Yaml str(std::string s);
  static Yaml integer(int64_t v);
  static Yaml boolean(bool v);
  static Yaml map();
  static Yaml list();

  // Map: appends key: value (returns *this for chaining).
  Yaml& set(std::string key, Yaml value);
  Yaml& set(std::string key, std::string value) {
    return set(std::move(key), str(std::move(value)));
  }
  // List: appends an item.
  Yaml& push(Yaml item);

  std::string render() const;  // one document, ending in a newline

 private:
  enum class Kind { Scalar, Map, List };
  void write(std::string& out, int indent, bool inList) const;
  Kind kind_ = Kind::Scalar;
  std::string scalar_;  // already in YAML form (quoted string, number, bool)
  std::vector<std::pair<std::string, Yaml>> entries_;
  std::vector<Yaml> items_;
};

// A YAML/JSON double-quoted scalar.
std::string quotedScalar(std::string_view s);

}  // namespace gpua::native
