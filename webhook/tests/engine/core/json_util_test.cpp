#include "engine/core/json_util.hpp"

#include <rapidjson/document.h>

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace gpua::engine {
namespace {

// RapidJSON's own writer: appendQuoted must write exactly its bytes, fast path or not.
std::string rapidjsonQuoted(const std::string& s) {
  rapidjson::StringBuffer buffer;
  rapidjson::Writer<rapidjson::StringBuffer> writer(buffer);
  writer.String(s.data(), static_cast<rapidjson::SizeType>(s.size()));
  return {buffer.GetString(), buffer.GetSize()};
}

TEST(JsonUtil, AppendQuotedWritesTheBytesOfRapidJsonsWriter) {
  std::vector<std::string> cases = {"",
                                    "/spec/tolerations/-",
                                    "/spec/containers/0/resources/limits/nvidia.com~1gpu",
                                    "say \"hi\"",
                                    "back\\slash",
                                    "tab\there",
                                    "line\nbreak",
                                    std::string("nul\0inside", 10),
                                    "\x7f del",
                                    "caf\xc3\xa9 \xf0\x9f\x98\x80",
                                    "bad \xff utf-8",
                                    "</script>"};
  for (int c = 0; c < 256; ++c) cases.push_back(std::string("a") + static_cast<char>(c) + "z");
  for (const auto& s : cases) {
    std::string out = "prefix:";
    json::appendQuoted(out, s);
    EXPECT_EQ(out, "prefix:" + rapidjsonQuoted(s)) << s;
    EXPECT_EQ(json::quoteString(s), rapidjsonQuoted(s)) << s;
    // The inside alone, and a literal written from two parts, are the writer's bytes too.
    std::string inside = "prefix:";
    json::appendEscaped(inside, s);
    EXPECT_EQ("prefix:\"" + inside.substr(7) + "\"", "prefix:" + rapidjsonQuoted(s)) << s;
    std::string parts = "\"";
    json::appendEscaped(parts, s);
    parts += '@';
    json::appendEscaped(parts, s);
    parts += '"';
    EXPECT_EQ(parts, rapidjsonQuoted(s + "@" + s)) << s;
  }
}

// The engine's writer gathers characters in the stream's own buffer (256 bytes) and reserves
// room per token: documents of every size around and past the buffer, with strings longer
// than it and strings that need escapes, come out as RapidJSON's StringBuffer writer makes them.
TEST(JsonUtil, TheAppendWritersBufferedStreamWritesTheWritersBytes) {
  for (std::size_t length : {0u, 1u, 40u, 250u, 255u, 256u, 257u, 300u, 1000u, 5000u}) {
    for (const bool escapes : {false, true}) {
      std::string text(length, 'v');
      if (escapes)
        for (std::size_t i = 0; i < length; i += 37) text[i] = i % 2 ? '"' : '\n';
      rapidjson::Document doc;
      doc.SetObject();
      auto& a = doc.GetAllocator();
      rapidjson::Value list(rapidjson::kArrayType);
      for (int i = 0; i < 5; ++i) {
        list.PushBack(
            rapidjson::Value(text.c_str(), static_cast<rapidjson::SizeType>(text.size()), a), a);
        list.PushBack(i * 1000003, a);
      }
      doc.AddMember("values", list, a);
      rapidjson::Value key(text.c_str(), static_cast<rapidjson::SizeType>(text.size()), a);
      rapidjson::Value yes(true);
      doc.AddMember(key, yes, a);
      rapidjson::StringBuffer buffer;
      rapidjson::Writer<rapidjson::StringBuffer> reference(buffer);
      doc.Accept(reference);
      std::string out = "prefix:";
      json::appendSerialized(out, doc);
      EXPECT_EQ(out, "prefix:" + std::string(buffer.GetString(), buffer.GetSize()))
          << length << (escapes ? " with escapes" : "");
    }
  }
}

// A JSON string literal as RapidJSON's escape table writes it (RFC 8259: '"', '\\' and every
// byte below 0x20 escaped, the short forms where there are some, other bytes as they are).
// Not RapidJSON's StringBuffer writer itself: with RAPIDJSON_SSE2 its 16-byte loop lets 0x1A to
// 0x1F through raw (it tests "up to 0x19"), which is not JSON.
std::string referenceLiteral(std::string_view text) {
  std::string out = "\"";
  for (const char ch : text) {
    const auto c = static_cast<unsigned char>(ch);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += ch;
    } else if (c >= 8 && c <= 13 && c != 11) {
      out += '\\';
      out += "btn?fr"[c - 8];
    } else if (c < 0x20) {
      static constexpr char kHex[] = "0123456789ABCDEF";
      out += "\\u00";
      out += kHex[c >> 4];
      out += kHex[c & 15];
    } else {
      out += ch;
    }
  }
  return out + "\"";
}

// Strings go through the writer's plain-run copy (16 bytes a step) and RapidJSON's own escaping
// of the byte it stops at: every byte value at every position of a 40-byte string, and strings
// around the stream's buffer size, come out as RapidJSON's escape table writes them.
TEST(JsonUtil, EveryByteAtEveryPositionOfAStringIsWrittenAsTheEscapeTableSays) {
  auto both = [](const std::string& text) {
    std::string out = "[1,";
    {
      json::AppendWriter w(out);
      w.String(text.data(), static_cast<rapidjson::SizeType>(text.size()));
    }
    EXPECT_EQ(out, "[1," + referenceLiteral(text));
  };
  for (int byte = 0; byte < 256; ++byte)
    for (std::size_t at = 0; at < 40; ++at) {
      std::string text(40, 'a');
      text[at] = static_cast<char>(byte);
      SCOPED_TRACE(::testing::Message() << "byte " << byte << " at " << at);
      both(text);
    }
  for (const std::size_t n : {15u, 16u, 17u, 41u, 42u, 43u, 44u, 45u, 255u, 256u, 1000u}) {
    both(std::string(n, 'x'));
    both(std::string(n, 'x') + "\"" + std::string(n, '\x01'));
  }
}

}  // namespace
}  // namespace gpua::engine
