// An independent RFC 6902 applier with the apiserver's evanphx/json-patch v4 strictness, so the
// tests check the binary's patches without trusting the engine's own applier.
#pragma once

#include <rapidjson/document.h>

#include <string>

namespace gpua::cli::test {

// Empty on success, else what failed. Supports add, remove, replace.
std::string applyJsonPatch(rapidjson::Document& doc, const rapidjson::Value& patch);

// Empty when every nvidia.com/* quantity in containers and initContainers follows the
// Kubernetes rules for extended resources; else the first broken rule.
std::string extendedResourceProblems(const rapidjson::Value& pod);

}  // namespace gpua::cli::test
