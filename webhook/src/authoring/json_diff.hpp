// A small structural diff of two JSON values, for test failure output: one line per differing
// JSON pointer, in document order.
#pragma once

#include <rapidjson/document.h>

#include <string>
#include <vector>

namespace gpua::authoring {

// Lines like "/spec/priorityClassName: expected \"gpu-training\", got \"gpu-inference\"",
// "/metadata/labels/x: missing", "/spec/tolerations/1: unexpected {...}". At most `limit` lines
// (a last line says how many more).
std::vector<std::string> jsonDiff(const rapidjson::Value& expected, const rapidjson::Value& actual,
                                  std::size_t limit = 20);

// Compact JSON, cut to `max` characters with "..." for long values.
std::string shortJson(const rapidjson::Value& v, std::size_t max = 120);

}  // namespace gpua::authoring
