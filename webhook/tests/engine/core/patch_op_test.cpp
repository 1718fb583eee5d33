#include <gtest/gtest.h>

#include "engine/core/patch_op.hpp"
#include "test_support.hpp"

namespace gpua::engine {
namespace {

TEST(EscapePointerToken, EscapesTildeBeforeSlash) {
  EXPECT_EQ(escapePointerToken("nvidia.com/gpu"), "nvidia.com~1gpu");
  EXPECT_EQ(escapePointerToken("a~b/c"), "a~0b~1c");
  EXPECT_EQ(escapePointerToken("~1"), "~01");  // not double-unescaped into "/"
  EXPECT_EQ(escapePointerToken(""), "");
  EXPECT_EQ(escapePointerToken("//~~"), "~1~1~0~0");
  EXPECT_EQ(escapePointerToken("plain-token"), "plain-token");
  EXPECT_EQ(escapePointerToken("end/"), "end~1");
}

TEST(SerializePatch, WritesRfc6902ArrayWithoutValueForRemove) {
  Patch p{{PatchOp::Kind::Add, "/spec/a", R"({"x":1})"},
          {PatchOp::Kind::Remove, "/spec/priority", ""},
          {PatchOp::Kind::Replace, "/metadata/annotations/a~1b", R"("q\"uote")"}};
  const std::string json = serializePatch(p);
  EXPECT_EQ(
      json,
      R"([{"op":"add","path":"/spec/a","value":{"x":1}},{"op":"remove","path":"/spec/priority"},)"
      R"({"op":"replace","path":"/metadata/annotations/a~1b","value":"q\"uote"}])");
  rapidjson::Document d = testing::parse(json);
  EXPECT_TRUE(d.IsArray());
}

TEST(SerializePatch, EmptyPatchIsEmptyArray) {
  EXPECT_EQ(serializePatch({}), "[]");
}

TEST(SerializePatch, EscapesControlCharactersInPaths) {
  const std::string json = serializePatch({{PatchOp::Kind::Remove, std::string("/a\nb"), ""}});
  EXPECT_EQ(json.find('\n'), std::string::npos);
  EXPECT_FALSE(testing::parse(json).HasParseError());
}

}  // namespace
}  // namespace gpua::engine
