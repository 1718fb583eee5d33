#include "kube/json_parse.hpp"

#include "kube/control_bytes.hpp"

#include <gtest/gtest.h>

#include <string>

namespace gpua::kube {
namespace {

using Problem = JsonParseResult::Problem;

std::string nested(std::size_t depth) {
  return std::string(depth, '[') + std::string(depth, ']');
}

TEST(JsonParse, CopyingParseOwnsItsStrings) {
  rapidjson::Document doc;
  {
    std::string text = R"({"kind":"PodList","items":[]})";
    ASSERT_TRUE(parseJson(text, doc).ok());
    text.assign(text.size(), 'x');  // the document must not point into the text
  }
  EXPECT_STREQ(doc["kind"].GetString(), "PodList");
}

TEST(JsonParse, RefusesControlBytesWhereverTheyStand) {
  rapidjson::Document doc;
  const auto r = parseJson(std::string("{\"a\":\"x\x1fy\"}"), doc);
  EXPECT_EQ(r.problem, Problem::ControlByte);
  EXPECT_EQ(r.offset, 7u);
  EXPECT_EQ(r.message,
            "invalid JSON at byte offset 7: unescaped control character U+001F (RFC 8259: escape "
            "it as \\u001F inside a string)");
  EXPECT_EQ(parseJson(std::string("[1]\0", 4), doc).problem, Problem::ControlByte);
}

// The scan takes 64 bytes a step, then 16, then one: a forbidden byte is found at its offset in
// every position, after whitespace in the same block, and whitespace alone is no finding.
TEST(JsonParse, FindsTheFirstForbiddenControlByteAtAnyOffset) {
  for (std::size_t size : {1u, 15u, 16u, 63u, 64u, 65u, 130u, 200u}) {
    const std::string plain(size, 'a');
    EXPECT_EQ(findForbiddenControlByte(plain), std::string_view::npos);
    std::string spaced = plain;
    for (std::size_t i = 0; i < size; i += 3) spaced[i] = "\t\n\r"[(i / 3) % 3];
    EXPECT_EQ(findForbiddenControlByte(spaced), std::string_view::npos);
    for (std::size_t at = 0; at < size; ++at) {
      for (char c : {'\0', '\x01', '\x1f'}) {
        std::string text = spaced;
        text[at] = c;
        if (at + 1 < size) text[at + 1] = '\x1e';  // a later one must not win
        EXPECT_EQ(findForbiddenControlByte(text), at) << "size " << size << " at " << at;
      }
    }
  }
}

TEST(JsonParse, RefusesNestingBeyondTheLimit) {
  rapidjson::Document doc;
  EXPECT_TRUE(parseJson(nested(kMaxJsonDepth), doc).ok());
  const auto r = parseJson(nested(kMaxJsonDepth + 1), doc);
  EXPECT_EQ(r.problem, Problem::TooDeep);
  EXPECT_EQ(r.reason, "nesting deeper than 64 levels");
  EXPECT_EQ(r.message.rfind("JSON nesting deeper than 64 levels at byte offset 6", 0), 0u)
      << r.message;
}

TEST(JsonParse, InvalidJsonAndTrailingDataSayWhere) {
  rapidjson::Document doc;
  const auto r = parseJson("{\"a\":}", doc);
  EXPECT_EQ(r.problem, Problem::Invalid);
  EXPECT_EQ(r.offset, 5u);
  EXPECT_EQ(r.message, "invalid JSON at byte offset 5: Invalid value.");
  EXPECT_EQ(parseJson("{} {}", doc).problem, Problem::Invalid);
}

TEST(JsonParse, InSituAndCopyingAgree) {
  for (const std::string& text : {std::string(R"({"a":[1,2,{"b":"c"}]})"), nested(65),
                                 std::string("[\"\x01\"]"), std::string("{")}) {
    rapidjson::Document a, b;
    std::string buffer = text;
    const auto copied = parseJson(text, a);
    const auto inSitu = parseJsonInSitu(buffer, b);
    EXPECT_EQ(copied.problem, inSitu.problem) << text;
    EXPECT_EQ(copied.message, inSitu.message) << text;
  }
}

}  // namespace
}  // namespace gpua::kube
