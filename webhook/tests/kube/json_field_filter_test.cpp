// The table-driven parse: only the table's paths become values, a value of an unexpected type is
// kept whole, a Choose entry is decided from what was captured before it, and errors, their
// offsets and the depth limit are those of the full parse.
#include <gtest/gtest.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <string>

#include "kube/json_field_table.hpp"
#include "kube/json_parse.hpp"

namespace gpua::kube {
namespace {

constexpr JsonField kItemFields[] = {{"name", &kKeepAll}};
constexpr JsonKeep kItem{JsonKeep::Kind::Fields, kItemFields};
constexpr JsonKeep kItems{JsonKeep::Kind::Elements, {}, &kItem};
constexpr JsonKeep kType = captured(0);
constexpr JsonField kRootFields[] = {
    {"type", &kType}, {"items", &kItems}, {"labels", &kKeepAll}, {"body", &kKeepChosen}};
constexpr JsonKeep kRoot{JsonKeep::Kind::Fields, kRootFields};

// "full" bodies are kept whole, any other only their "name".
const JsonKeep& bodyTable(const JsonCaptures& c) {
  return c.seen[0] == 1 && c.isString[0] && c.value[0] == "full" ? kKeepAll : kItem;
}

std::string filtered(std::string text) {
  rapidjson::Document doc;
  const auto r = parseJsonInSitu(text, doc, kRoot, bodyTable);
  if (!r.ok()) return "error: " + r.message;
  rapidjson::StringBuffer out;
  rapidjson::Writer<rapidjson::StringBuffer> w(out);
  doc.Accept(w);
  return out.GetString();
}

std::string fullError(std::string text) {
  rapidjson::Document doc;
  return "error: " + parseJsonInSitu(text, doc).message;
}

TEST(JsonFieldFilter, KeepsOnlyTheTablesPaths) {
  EXPECT_EQ(filtered(R"({"a":{"b":[1,{"c":2}]},"items":[{"name":"x","image":"i"},{"z":[]}],)"
                     R"("labels":{"k":"v","n":{"deep":[1]}},"type":7})"),
            R"({"items":[{"name":"x"},{}],"labels":{"k":"v","n":{"deep":[1]}},"type":7})");
}

TEST(JsonFieldFilter, KeepsAValueOfAnUnexpectedTypeWhole) {
  EXPECT_EQ(filtered(R"({"items":{"name":"x","other":1}})"), R"({"items":{"name":"x","other":1}})");
  EXPECT_EQ(filtered(R"({"items":[["a"],"s",{"name":[1]}]})"),
            R"({"items":[["a"],"s",{"name":[1]}]})");
  EXPECT_EQ(filtered(R"([{"x":1}])"), R"([{"x":1}])");
}

TEST(JsonFieldFilter, ChoosesFromWhatWasCapturedBefore) {
  EXPECT_EQ(filtered(R"({"type":"full","body":{"name":"n","x":1}})"),
            R"({"type":"full","body":{"name":"n","x":1}})");
  EXPECT_EQ(filtered(R"({"type":"short","body":{"name":"n","x":1}})"),
            R"({"type":"short","body":{"name":"n"}})");
  // Too late, or twice: not the "full" the chooser looks for.
  EXPECT_EQ(filtered(R"({"body":{"name":"n","x":1},"type":"full"})"),
            R"({"body":{"name":"n"},"type":"full"})");
  EXPECT_EQ(filtered(R"({"type":"full","type":"full","body":{"name":"n","x":1}})"),
            R"({"type":"full","type":"full","body":{"name":"n"}})");
}

TEST(JsonFieldFilter, ErrorsAndDepthAreTheFullParses) {
  const std::string broken[] = {
      R"({"skipped":{"a":[1,2,}]},"items":[]})",
      R"({"items":[{"name":"x"}],"skipped":tru})",
      R"({"skipped":"\x"})",
      R"({"items":[]} trailing)",
      std::string(70, '[') + std::string(70, ']'),
      R"({"skipped":)" + std::string(70, '[') + std::string(70, ']') + "}",
  };
  for (const auto& text : broken) {
    SCOPED_TRACE(text);
    EXPECT_EQ(filtered(text), fullError(text));
  }
}

}  // namespace
}  // namespace gpua::kube
