// YAML nodes to JSON as kubectl reads them (sigs.k8s.io/yaml on go-yaml v2, YAML 1.1): quoted
// scalars stay strings; plain ints, floats, booleans (true/false/yes/no/on/off) and nulls become
// JSON numbers, booleans and null. Shared by the object reader (documents.hpp) and the case file
// reader, whose inline objects and expected values must compare as the API server would.
#pragma once

#include <rapidjson/document.h>
#include <yaml-cpp/yaml.h>

#include <stdexcept>
#include <string>
#include <string_view>

namespace gpua::authoring {

// A node JSON cannot hold (a non-scalar key, a duplicate key, a number out of range, nesting
// deeper than 200 levels), with the node's mark; the caller says which file it is in.
class YamlValueError : public std::runtime_error {
 public:
  YamlValueError(const YAML::Mark& mark, const std::string& message)
      : std::runtime_error(message), mark_(mark) {}
  const YAML::Mark& mark() const { return mark_; }

 private:
  YAML::Mark mark_;
};

// Throws YamlValueError.
void yamlToJson(const YAML::Node& node, rapidjson::Value& out,
                rapidjson::Document::AllocatorType& allocator);

// Whether a YAML reader would resolve the plain scalar `text` to something other than a string
// (a number, a boolean, null): such strings are quoted when printed as YAML.
bool resolvesToNonString(std::string_view text);

}  // namespace gpua::authoring
