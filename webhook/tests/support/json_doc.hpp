// Parsing JSON in tests: a document, with a test failure (not a crash) when the text is not JSON.
#pragma once

#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include <string>

namespace gpua::testing {

inline rapidjson::Document parse(const std::string& json) {
  rapidjson::Document d;
  d.Parse(json.data(), json.size());
  EXPECT_FALSE(d.HasParseError()) << json;
  return d;
}

}  // namespace gpua::testing
