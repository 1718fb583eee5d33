#include "kube/depth_limited_parse.hpp"

#include <gtest/gtest.h>

#include <string>

namespace gpua::kube {
namespace {

struct Parsed {
  DepthLimitedParse result;
  rapidjson::Document doc;
  std::string buffer;  // owns the strings of doc
};

std::unique_ptr<Parsed> parse(std::string text, std::size_t limit) {
  auto p = std::make_unique<Parsed>();
  p->buffer = std::move(text);
  p->result = parseInSituWithDepthLimit(p->buffer, p->doc, limit);
  return p;
}

std::string nested(std::size_t depth) {
  return std::string(depth, '[') + std::string(depth, ']');
}

TEST(DepthLimitedParse, AcceptsUpToTheLimitAndRefusesOneMore) {
  auto ok = parse(nested(64), 64);
  EXPECT_FALSE(ok->result.result.IsError());
  EXPECT_FALSE(ok->result.tooDeep);
  EXPECT_TRUE(ok->doc.IsArray());
  auto deep = parse(nested(65), 64);
  EXPECT_TRUE(deep->result.tooDeep);
  EXPECT_EQ(deep->result.result.Code(), rapidjson::kParseErrorTermination);
}

TEST(DepthLimitedParse, CountsObjectsAndArraysTogether) {
  EXPECT_FALSE(parse(R"({"a":{"b":[{"c":1}]}})", 4)->result.tooDeep);
  EXPECT_TRUE(parse(R"({"a":{"b":[{"c":1}]}})", 3)->result.tooDeep);
}

TEST(DepthLimitedParse, SiblingsDoNotAddUp) {
  std::string wide = "[";
  for (int i = 0; i < 1000; ++i) wide += "[1],";
  wide += "[]]";
  auto p = parse(wide, 2);
  EXPECT_FALSE(p->result.result.IsError());
  EXPECT_EQ(p->doc.Size(), 1001u);
}

TEST(DepthLimitedParse, BracketsInsideStringsDoNotCount) {
  auto p = parse(R"({"k":"\"[[[[[[{{{{"})", 1);
  ASSERT_FALSE(p->result.result.IsError());
  EXPECT_STREQ(p->doc["k"].GetString(), "\"[[[[[[{{{{");
}

TEST(DepthLimitedParse, HugeDepthStopsWithoutDeepRecursion) {
  // A recursive parse of this would overflow the stack (ASan would report it).
  auto p = parse(std::string(1'000'000, '['), 64);
  EXPECT_TRUE(p->result.tooDeep);
  EXPECT_LE(p->result.result.Offset(), 65u);
}

TEST(DepthLimitedParse, ReportsSyntaxErrorsAndTrailingData) {
  auto bad = parse(R"({"a":})", 64);
  EXPECT_FALSE(bad->result.tooDeep);
  EXPECT_EQ(bad->result.result.Code(), rapidjson::kParseErrorValueInvalid);
  EXPECT_EQ(bad->result.result.Offset(), 5u);
  auto trailing = parse(R"({} {})", 64);
  EXPECT_EQ(trailing->result.result.Code(), rapidjson::kParseErrorDocumentRootNotSingular);
}

}  // namespace
}  // namespace gpua::kube
