// The structural JSON diff behind failing `patched`/`patchedPod` expectations.
#include "authoring/json_diff.hpp"

#include <gtest/gtest.h>

#include "authoring_test_support.hpp"

namespace gpua::authoring {
namespace {

using testing::json;

TEST(JsonDiff, EqualValuesHaveNoDifference) {
  EXPECT_TRUE(jsonDiff(json(R"({"a": [1, {"b": 2}]})"), json(R"({"a": [1, {"b": 2}]})")).empty());
}

TEST(JsonDiff, OneLinePerDifferingPointerInDocumentOrder) {
  const auto lines = jsonDiff(json(R"({"a": 1, "b": {"c": "x"}, "l": [1, 2], "m": 1})"),
                              json(R"({"a": 2, "b": {"c": "y", "d": true}, "l": [1], "z": 0})"));
  const std::vector<std::string> want = {
      "/a: expected 1, got 2",     "/b/c: expected \"x\", got \"y\"", "/b/d: unexpected true",
      "/l/1: expected 2, missing", "/m: expected 1, missing",         "/z: unexpected 0",
  };
  EXPECT_EQ(lines, want);
}

TEST(JsonDiff, PointerTokensAreEscaped) {
  const auto lines = jsonDiff(json(R"({"nvidia.com/gpu": 1, "a~b": 1})"),
                              json(R"({"nvidia.com/gpu": 2, "a~b": 1})"));
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines[0], "/nvidia.com~1gpu: expected 1, got 2");
}

TEST(JsonDiff, TypeChangeAtTheRootIsOneLine) {
  EXPECT_EQ(jsonDiff(json("[1]"), json(R"({"a": 1})")),
            std::vector<std::string>{"/: expected [1], got {\"a\":1}"});
}

TEST(JsonDiff, LongDiffsAreCutWithACount) {
  const auto lines = jsonDiff(json("[1, 2, 3, 4, 5]"), json("[0, 0, 0, 0, 0]"), 2);
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(lines[2], "... and 3 more difference(s)");
}

TEST(JsonDiff, ShortJsonCutsLongValues) {
  EXPECT_EQ(shortJson(json(R"(["abcdefghij"])"), 10), "[\"abcde...");
  EXPECT_EQ(shortJson(json(R"({"a":1})")), "{\"a\":1}");
}

}  // namespace
}  // namespace gpua::authoring
