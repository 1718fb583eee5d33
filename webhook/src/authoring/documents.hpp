// Reading Kubernetes objects (JSON or YAML) into RapidJSON, and printing RapidJSON back as YAML
// or JSON. YAML scalars follow kubectl (yaml_json.hpp): quoted scalars stay strings; plain ints,
// floats, booleans (true/false/yes/no/on/off) and nulls become JSON numbers, booleans and null,
// so `nvidia.com/gpu: 1` and `"1"` differ as they would in `kubectl apply`.
#pragma once

#include <rapidjson/document.h>

#include <string>
#include <string_view>

#include "authoring/input_error.hpp"

namespace gpua::authoring {

// Parses `text` as JSON when it starts with '{' or '[', else as a single YAML document.
// `name` is used in errors only. Throws InputError.
rapidjson::Document parseDocument(std::string_view text, const std::string& name);

// Reads and parses a file ("-" = stdin). Throws InputError.
rapidjson::Document readDocumentFile(const std::string& path);

// Reads a whole file ("-" = stdin). Throws InputError.
std::string readTextFile(const std::string& path);

// Block-style YAML that parseDocument reads back to the same JSON (strings that would resolve
// to another type are quoted).
std::string toYaml(const rapidjson::Value& value);

std::string toJson(const rapidjson::Value& value, bool pretty);

}  // namespace gpua::authoring
