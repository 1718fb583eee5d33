#include "kube/json.hpp"

#include <gtest/gtest.h>

namespace gpua::kube::json {
namespace {

rapidjson::Document parsed(const char* text) {
  rapidjson::Document d;
  d.Parse(text);
  return d;
}

TEST(KubeJson, MistypedOrMissingFieldsReadAsAbsent) {
  const auto d = parsed(R"({"metadata":{"name":"x","labels":[]},"spec":7})");
  EXPECT_EQ(path(d, "metadata", "name"), "x");
  EXPECT_EQ(path(d, "spec", "nodeName"), "");
  EXPECT_EQ(member(d, "status"), nullptr);
  EXPECT_EQ(objectMember(&d, "spec"), nullptr);
  EXPECT_EQ(arrayMember(member(d, "metadata"), "labels")->Size(), 0u);
  EXPECT_EQ(stringMember(nullptr, "a"), "");
  EXPECT_TRUE(labelsOf(d).empty());
}

// The look-up rules names out by length and first byte before comparing them whole: names of the
// same length, the same first byte, the same prefix, short (inline) and long, empty, with a
// NUL inside, and duplicates (the first wins) are each found by exactly their own key.
TEST(KubeJson, MemberFindsExactlyItsOwnKey) {
  rapidjson::Document d;
  d.Parse(R"({"abcd":1,"abce":2,"xbcd":3,"abc":4,"":5,"a\u0000b":6,"abcd":7,)"
          R"("a-name-longer-than-any-inline-string":8,"a-name-longer-than-any-inline-strinG":9})");
  ASSERT_FALSE(d.HasParseError());
  auto at = [&](std::string_view key) {
    const rapidjson::Value* v = member(d, key);
    return v == nullptr ? -1 : v->GetInt();
  };
  EXPECT_EQ(at("abcd"), 1);
  EXPECT_EQ(at("abce"), 2);
  EXPECT_EQ(at("xbcd"), 3);
  EXPECT_EQ(at("abc"), 4);
  EXPECT_EQ(at(""), 5);
  EXPECT_EQ(at(std::string_view("a\0b", 3)), 6);
  EXPECT_EQ(at("a-name-longer-than-any-inline-string"), 8);
  EXPECT_EQ(at("a-name-longer-than-any-inline-strinG"), 9);
  EXPECT_EQ(at("abcf"), -1);
  EXPECT_EQ(at("ab"), -1);
  EXPECT_EQ(at("a"), -1);
  EXPECT_EQ(at(std::string_view("a\0c", 3)), -1);
  EXPECT_EQ(at("a-name-longer-than-any-inline-strinx"), -1);
}

TEST(KubeJson, LabelsOfKeepsStringValuesAndTheFirstOfDuplicates) {
  const auto d = parsed(R"({"metadata":{"labels":{"a":"1","n":2,"a":"3","b":""}}})");
  const Labels labels = labelsOf(d);
  EXPECT_EQ(labels, (Labels{{"a", "1"}, {"b", ""}}));
}

}  // namespace
}  // namespace gpua::kube::json
