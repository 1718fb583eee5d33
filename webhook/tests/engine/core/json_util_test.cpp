#include "engine/core/json_util.hpp"

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

}  // namespace
}  // namespace gpua::engine
