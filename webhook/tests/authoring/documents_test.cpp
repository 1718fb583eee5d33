// Reading objects as kubectl does (YAML 1.1 scalars, one document, file:line:col errors) and
// printing them back as YAML that reads back to the same JSON.
#include "authoring/documents.hpp"

#include <gtest/gtest.h>

#include "authoring_test_support.hpp"

namespace gpua::authoring {
namespace {

using testing::ScratchDir;

std::string errorOf(const std::string& text, const std::string& name = "pod.yaml") {
  try {
    parseDocument(text, name);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST(Documents, PlainYamlScalarsResolveAsKubectlDoes) {
  const auto d = parseDocument(
      "int: 1\nfloat: 1.5\nyes: yes\noff: off\nnone: ~\nquoted: \"1\"\nhex: 0x10\ntext: nvidia\n",
      "x.yaml");
  EXPECT_TRUE(d["int"].IsInt64());
  EXPECT_EQ(d["int"].GetInt64(), 1);
  EXPECT_DOUBLE_EQ(d["float"].GetDouble(), 1.5);
  EXPECT_TRUE(d["yes"].IsTrue());
  EXPECT_TRUE(d["off"].IsFalse());
  EXPECT_TRUE(d["none"].IsNull());
  EXPECT_STREQ(d["quoted"].GetString(), "1");
  EXPECT_EQ(d["hex"].GetInt64(), 16);
  EXPECT_STREQ(d["text"].GetString(), "nvidia");
}

TEST(Documents, JsonIsReadAsJson) {
  const auto d = parseDocument(R"({"a": [1, "1", true]})", "x.json");
  ASSERT_TRUE(d["a"].IsArray());
  EXPECT_TRUE(d["a"][0].IsInt());
  EXPECT_TRUE(d["a"][1].IsString());
}

TEST(Documents, ErrorsNameFileLineAndColumn) {
  EXPECT_EQ(errorOf("a: 1\nb:\n  c: 1\n   d: 2\n").rfind("pod.yaml:4:", 0), 0u)
      << errorOf("a: 1\nb:\n  c: 1\n   d: 2\n");
  EXPECT_EQ(errorOf("a: 1\na: 2\n"), "pod.yaml:2:1: duplicate key \"a\"");
  EXPECT_EQ(errorOf("{\n  \"a\": }\n", "x.json").rfind("x.json:2:", 0), 0u);
  EXPECT_EQ(errorOf("  \n"), "pod.yaml: empty document");
  EXPECT_EQ(errorOf("a: 1\n---\nb: 2\n"),
            "pod.yaml: holds 2 YAML documents; give one object per file");
  // JSON has no infinity or NaN: kubectl refuses them too.
  EXPECT_EQ(errorOf("a: .inf\n"), "pod.yaml:1:4: not representable in JSON: .inf");
  EXPECT_EQ(errorOf("a: [-.Inf]\n"), "pod.yaml:1:5: not representable in JSON: -.Inf");
  EXPECT_EQ(errorOf("a: .NaN\n"), "pod.yaml:1:4: not representable in JSON: .NaN");
}

TEST(Documents, ToYamlReadsBackToTheSameJson) {
  const auto original = parseDocument(
      R"({"s": "1", "b": "true", "n": 2, "f": 0.25, "e": {}, "l": [], "x": null, "t": "on",
          "nested": {"list": [{"k": "v"}, "yes"]}})",
      "x.json");
  const auto back = parseDocument(toYaml(original), "back.yaml");
  EXPECT_EQ(back, original) << toYaml(original);
}

TEST(Documents, ReadDocumentFileNamesAMissingFile) {
  ScratchDir dir;
  const std::string missing = (dir.path() / "nope.yaml").string();
  try {
    readDocumentFile(missing);
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()), missing + ": cannot open file");
  }
  const auto file = dir.write("pod.yaml", "kind: Pod\n");
  EXPECT_STREQ(readDocumentFile(file)["kind"].GetString(), "Pod");
}

TEST(Documents, ToJsonCompactAndPretty) {
  const auto d = parseDocument(R"({"a": [1, 2]})", "x.json");
  EXPECT_EQ(toJson(d, false), R"({"a":[1,2]})");
  EXPECT_EQ(toJson(d, true), "{\n  \"a\": [\n    1,\n    2\n  ]\n}");
}

// Every control byte escaped, wherever it stands: RapidJSON 1.1's SSE2 StringBuffer writer
// (the build defines RAPIDJSON_SSE2) let 0x1A..0x1F through raw inside 16-byte blocks, so
// `review` of a valid pod whose long string held one refused its own AdmissionReview as
// invalid JSON.
TEST(Documents, ToJsonEscapesEveryControlByteAtEveryPosition) {
  for (int byte = 0; byte < 0x20; ++byte)
    for (std::size_t at = 0; at < 40; ++at) {
      std::string text(40, 'a');
      text[at] = static_cast<char>(byte);
      rapidjson::Document d;
      d.SetObject();
      d.AddMember("s", rapidjson::Value(text.c_str(), 40, d.GetAllocator()), d.GetAllocator());
      for (const bool pretty : {false, true}) {
        const std::string json = toJson(d, pretty);
        for (const char c : json)
          ASSERT_TRUE(static_cast<unsigned char>(c) >= 0x20 || c == '\n')
              << "raw byte " << byte << " at " << at << (pretty ? " (pretty)" : "");
        const auto back = parseDocument(json, "x.json");
        ASSERT_EQ(std::string(back["s"].GetString(), back["s"].GetStringLength()), text);
      }
    }
}

}  // namespace
}  // namespace gpua::authoring
