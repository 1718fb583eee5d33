#include "kube/json_parse.hpp"

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
