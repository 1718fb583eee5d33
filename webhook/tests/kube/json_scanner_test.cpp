// The request path's JSON reader against RapidJSON's, its oracle: on valid text the scanner reads
// it itself (not by handing it over) into the same document, numbers typed the same way and
// escapes decoded the same way; on anything else it refuses, leaves the text byte for byte as it
// was, and the parse's verdict, offset and depth finding are RapidJSON's.
#include "kube/json_scanner.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "kube/depth_limited_parse.hpp"
#include "kube/json_field_filter.hpp"
#include "kube/json_field_table.hpp"
#include "support/json_typed_dump.hpp"

namespace gpua::kube {
namespace {

using testing::typedDump;

struct Read {
  bool ok = false;
  std::string dump;  // the document when ok
  std::string text;  // the text after the read
};

// The scanner alone (no fallback), building a document.
template <typename Wrap>
Read scanWith(std::string text, Wrap wrap, std::size_t maxDepth = kMaxJsonDepth) {
  rapidjson::Document doc;
  Read r;
  auto decoded = [&doc](std::size_t n) { return static_cast<char*>(doc.GetAllocator().Malloc(n)); };
  auto generate = [&](rapidjson::Document& target) {
    auto&& handler = wrap(target);
    JsonScanner scanner(text.data(), text.data() + text.size(), handler, decoded, maxDepth);
    return r.ok = scanner.read();
  };
  doc.Populate(generate);
  if (r.ok) r.dump = typedDump(doc);
  r.text = text;
  return r;
}

Read scan(std::string text) {
  return scanWith(std::move(text),
                  [](rapidjson::Document& d) -> rapidjson::Document& { return d; });
}

// RapidJSON's reader alone, in situ as the request path used it.
Read rapidJson(std::string text) {
  rapidjson::Document doc;
  const auto r = parseInSituWithDepthLimit(text, doc, kMaxJsonDepth, InSituReader::RapidJson);
  return {!r.result.IsError(), r.result.IsError() ? "" : typedDump(doc), ""};
}

void expectReadLikeRapidJson(const std::string& text) {
  SCOPED_TRACE(text);
  const Read mine = scan(text);
  const Read oracle = rapidJson(text);
  ASSERT_TRUE(oracle.ok) << "the oracle refuses this text: not a valid-text case";
  ASSERT_TRUE(mine.ok) << "the scanner handed valid text over instead of reading it";
  EXPECT_EQ(mine.dump, oracle.dump);
}

TEST(JsonScanner, ReadsValidTextIntoTheSameDocument) {
  for (const std::string text :
       {R"({})", R"([])", R"("")", R"("plain")", R"(true)", R"(false)", R"(null)", R"(0)",
        R"({"a":1,"a":2,"b":[true,false,null,"x",{"c":{}}]})",
        " \t\r\n{ \"k\" : [ 1 , 2 ] , \"e\" : { } , \"f\" : [ ] } \n",
        R"({"kind":"Pod","metadata":{"name":"exactly-sixteen!","labels":{"":""}}})",
        R"(["a string longer than one sixteen-byte block, quote at the very end"])",
        R"([["nested"],[[[]]],{"":{"":{"":null}}}])"})
    expectReadLikeRapidJson(text);
}

TEST(JsonScanner, TypesNumbersAsRapidJsonTypesThem) {
  constexpr const char* kNumbers[] = {"0",
                                      "-0",
                                      "7",
                                      "-7",
                                      "2147483647",
                                      "2147483648",
                                      "-2147483648",
                                      "-2147483649",
                                      "4294967295",
                                      "4294967296",
                                      "-4294967296",
                                      "999999999999999999",
                                      "-999999999999999999",
                                      "1000000000000000000",
                                      "9223372036854775807",
                                      "9223372036854775808",
                                      "-9223372036854775808",
                                      "-9223372036854775809",
                                      "18446744073709551615",
                                      "18446744073709551616",
                                      "123456789012345678901234567890",
                                      "1.5",
                                      "-0.0",
                                      "1e2",
                                      "1E+2",
                                      "1e-2",
                                      "0.1",
                                      "2.5e-300",
                                      "1.7976931348623157e308"};
  for (const std::string n : kNumbers) {
    expectReadLikeRapidJson(n);
    expectReadLikeRapidJson("[" + n + "]");
    expectReadLikeRapidJson(R"({"n":)" + n + "}");
  }
}

TEST(JsonScanner, DecodesEscapesAsRapidJsonDecodesThem) {
  for (const std::string text :
       {R"(["\"\\\/\b\f\n\r\t"])", R"(["\u0041\u00e9\u20ac"])", R"(["\ud83d\ude00 face"])",
        R"(["lone low \udc00 surrogate"])", R"(["\u0000 NUL inside"])",
        R"({"key \"quoted\"":"v\\"})", R"(["a fairly long string with an escape at \n the end"])"})
    expectReadLikeRapidJson(text);
}

// Escapes are decoded elsewhere, so the text keeps them and only closing quotes became NULs.
TEST(JsonScanner, LeavesEscapesInTheText) {
  const Read r = scan(R"(["a\nb"])");
  ASSERT_TRUE(r.ok);
  EXPECT_EQ(r.text, std::string(R"(["a\nb"])"));
  const Read plain = scan(R"(["ab"])");
  EXPECT_EQ(plain.text, std::string("[\"ab\0]", 6));
}

TEST(JsonScanner, RefusesWhatItDoesNotReadAndLeavesTheTextAsItWas) {
  for (const std::string& text : std::vector<std::string>{R"()",
                                                          R"( )",
                                                          R"({)",
                                                          R"([1,])",
                                                          R"({"a":1,})",
                                                          R"({"a" 1})",
                                                          R"({a:1})",
                                                          R"([01])",
                                                          R"([-])",
                                                          R"([1.])",
                                                          R"([1e])",
                                                          R"([tru])",
                                                          R"([nul])",
                                                          R"("unterminated)",
                                                          R"(["bad \x escape"])",
                                                          R"(["\u12"])",
                                                          R"(["\ud800"])",
                                                          R"(["\ud800\u0041"])",
                                                          R"({"a":"b"} trailing)",
                                                          R"([1] [2])",
                                                          R"(["ok","ok",)",
                                                          R"([1e400])",
                                                          "[\"raw \x01 control\"]",
                                                          std::string("[\"a\0b\"]", 7),
                                                          R"(["s","t"]x)"}) {
    SCOPED_TRACE(text);
    const Read r = scan(text);
    EXPECT_FALSE(r.ok);
    EXPECT_EQ(r.text, text);
  }
}

// Through the parse entry point: whatever the scanner refuses, the verdict, code and offset are
// the oracle's, including the depth limit inside and outside dropped values.
TEST(JsonScanner, ParseGivesTheOraclesVerdictOnEveryText) {
  std::vector<std::string> texts = {R"({"a":[1,2)",
                                    R"([1e400])",
                                    R"(["\ud800"])",
                                    "[\"raw \x1f control\"]",
                                    R"([1] x)",
                                    R"({"a":"b","c":[true,{"d":null}]})",
                                    std::string(64, '[') + std::string(64, ']'),
                                    std::string(65, '[') + std::string(65, ']'),
                                    R"({"x":)" + std::string(64, '[')};
  for (const auto& text : texts) {
    SCOPED_TRACE(text);
    std::string a = text, b = text;
    rapidjson::Document da, db;
    const auto mine = parseInSituWithDepthLimit(a, da, kMaxJsonDepth, InSituReader::Scanner);
    const auto oracle = parseInSituWithDepthLimit(b, db, kMaxJsonDepth, InSituReader::RapidJson);
    EXPECT_EQ(mine.result.Code(), oracle.result.Code());
    EXPECT_EQ(mine.result.Offset(), oracle.result.Offset());
    EXPECT_EQ(mine.tooDeep, oracle.tooDeep);
    if (!oracle.result.IsError()) {
      EXPECT_EQ(typedDump(da), typedDump(db));
    }
  }
}

constexpr JsonField kKeptFields[] = {{"keep", &kKeepAll}};
constexpr JsonKeep kKept{JsonKeep::Kind::Fields, kKeptFields};

// Values a filter drops are skipped unbuilt, but checked as strictly: an error or excess depth
// inside one is still refused, and the document is the filtered one.
TEST(JsonScanner, SkipsDroppedValuesButStillChecksThem) {
  auto filter = [](rapidjson::Document& d) {
    return JsonFieldFilter<rapidjson::Document>(d, kKept, nullptr);
  };
  const Read kept = scanWith(R"({"drop":{"a":[1,"\u00e9",{"b":1.5e3}]},"keep":"k"})", filter);
  ASSERT_TRUE(kept.ok);
  EXPECT_EQ(kept.dump, "{s4:keeps1:k}");
  for (const std::string& bad : std::vector<std::string>{
           R"({"drop":[1 2],"keep":1})", R"({"drop":"\q","keep":1})", R"({"drop":1e999})",
           R"({"drop":[01]})", R"({"drop":{"a"}})", R"({"drop":["\ud800x"]})",
           R"({"drop":)" + std::string(64, '[') + std::string(64, ']') + "}"}) {
    SCOPED_TRACE(bad);
    const Read r = scanWith(bad, filter);
    EXPECT_FALSE(r.ok);
    EXPECT_EQ(r.text, bad);
  }
  EXPECT_TRUE(
      scanWith(R"({"drop":)" + std::string(63, '[') + std::string(63, ']') + "}", filter).ok);
}

}  // namespace
}  // namespace gpua::kube

namespace gpua::kube {
namespace {

// The loops leave the space before a value to the value's own dispatch and the space after a key
// or value to the miss of their compare for ':' or ','. Whitespace of every kind JSON allows (and
// two it does not) at every position of a text, the dropped value of a filter included: the
// scanner reads what RapidJSON reads, itself, into the same document, and refuses the rest.
TEST(JsonScanner, WhitespaceAtEveryPositionIsReadAsRapidJsonReadsIt) {
  const std::string base = R"({"drop":[1,"s",{"x":null}],"keep":[true,{"k":-2}]})";
  auto filter = [](rapidjson::Document& d) {
    return JsonFieldFilter<rapidjson::Document>(d, kKept, nullptr);
  };
  for (const std::string space : {" ", "\t", "\n", "\r", " \r\n\t ", "\f", "\v"}) {
    for (std::size_t at = 0; at <= base.size(); ++at) {
      std::string text = base;
      text.insert(at, space);
      SCOPED_TRACE(::testing::Message() << "at " << at << ": " << text);
      const Read oracle = rapidJson(text);
      const Read mine = scan(text);
      EXPECT_EQ(mine.ok, oracle.ok);
      if (oracle.ok) {
        EXPECT_EQ(mine.dump, oracle.dump);
      }
      if (!mine.ok) {
        EXPECT_EQ(mine.text, text);
      }
      const Read filtered = scanWith(text, filter);
      EXPECT_EQ(filtered.ok, oracle.ok);
      if (!filtered.ok) {
        EXPECT_EQ(filtered.text, text);
      }
    }
  }
}

}  // namespace
}  // namespace gpua::kube
