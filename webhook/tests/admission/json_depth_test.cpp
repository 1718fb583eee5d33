#include "admission/json_depth.hpp"

#include <gtest/gtest.h>

#include <string>

namespace gpua::admission {
namespace {

std::string nested(std::size_t depth) {
  return std::string(depth, '[') + std::string(depth, ']');
}

TEST(JsonDepth, CountsArraysAndObjectsUpToTheLimit) {
  EXPECT_FALSE(exceedsJsonDepth(nested(64), 64));
  EXPECT_TRUE(exceedsJsonDepth(nested(65), 64));
  EXPECT_FALSE(exceedsJsonDepth(R"({"a":{"b":[{"c":1}]}})", 4));
  EXPECT_TRUE(exceedsJsonDepth(R"({"a":{"b":[{"c":1}]}})", 3));
}

TEST(JsonDepth, SiblingsDoNotAddUp) {
  std::string wide = "[";
  for (int i = 0; i < 1000; ++i) wide += "[1],";
  wide += "[]]";
  EXPECT_FALSE(exceedsJsonDepth(wide, 2));
}

TEST(JsonDepth, IgnoresBracketsInsideStrings) {
  const std::string s = R"({"k":")" + std::string(500, '[') + R"("})";
  EXPECT_FALSE(exceedsJsonDepth(s, 1));
}

TEST(JsonDepth, EscapedQuoteDoesNotEndTheString) {
  const std::string s = R"({"k":"\"[[[[[[\\"})";  // string: "[[[[[[\  then the object closes
  EXPECT_FALSE(exceedsJsonDepth(s, 1));
  const std::string t = R"(["\\",[[1]]])";  // escaped backslash: the string ends, brackets count
  EXPECT_TRUE(exceedsJsonDepth(t, 2));
}

TEST(JsonDepth, HugeDepthIsDetectedWithoutRecursion) {
  EXPECT_TRUE(exceedsJsonDepth(std::string(1'000'000, '{')));
}

}  // namespace
}  // namespace gpua::admission
