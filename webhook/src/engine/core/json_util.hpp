// The engine's JSON vocabulary: kube's tolerant readers (a wrong type reads as absent), plus the
// writer used to serialize patch values.
#pragma once

#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <string>
#include <string_view>

#include "kube/json.hpp"

namespace gpua::engine::json {

using Value = rapidjson::Value;
using Writer = rapidjson::Writer<rapidjson::StringBuffer>;

// The readers are kube's (kube/json.hpp), shared with the admission codec, the cluster decoders
// and the CLI.
using kube::json::arrayMember;
using kube::json::member;
using kube::json::objectMember;
using kube::json::stringMember;
using kube::json::view;

inline void writeString(Writer& w, std::string_view s) {
  w.String(s.data(), static_cast<rapidjson::SizeType>(s.size()));
}

// A RapidJSON output stream that appends to a std::string, so values and string literals are
// written straight into the text being built (no intermediate StringBuffer and copy).
struct StringAppender {
  using Ch = char;
  std::string& out;
  void Put(char c) { out.push_back(c); }
  void Flush() {}
};

// Serializes `v` as compact JSON text.
std::string serialize(const Value& v);

// A JSON string literal for `s`, quotes included.
std::string quoteString(std::string_view s);

// The same two, appended to `out` (byte-identical to the returning forms).
void appendSerialized(std::string& out, const Value& v);
void appendQuoted(std::string& out, std::string_view s);

}  // namespace gpua::engine::json
