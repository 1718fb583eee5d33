// Small, allocation-free helpers for reading a rapidjson::Value in place, plus the writer used
// to serialize patch values. Every reader tolerates any JSON shape: a wrong type reads as absent.
#pragma once

#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <string>
#include <string_view>

namespace gpua::engine::json {

using Value = rapidjson::Value;
using Writer = rapidjson::Writer<rapidjson::StringBuffer>;

inline std::string_view view(const Value& v) {
  return v.IsString() ? std::string_view(v.GetString(), v.GetStringLength()) : std::string_view();
}

// The member `key` of `obj`, or nullptr when obj is null, not an object, or lacks the key.
inline const Value* member(const Value* obj, std::string_view key) {
  if (obj == nullptr || !obj->IsObject()) return nullptr;
  for (auto it = obj->MemberBegin(); it != obj->MemberEnd(); ++it)
    if (view(it->name) == key) return &it->value;
  return nullptr;
}

inline const Value* objectMember(const Value* obj, std::string_view key) {
  const Value* v = member(obj, key);
  return v != nullptr && v->IsObject() ? v : nullptr;
}

inline const Value* arrayMember(const Value* obj, std::string_view key) {
  const Value* v = member(obj, key);
  return v != nullptr && v->IsArray() ? v : nullptr;
}

// The string member `key`, or an empty view when absent or not a string.
inline std::string_view stringMember(const Value* obj, std::string_view key) {
  const Value* v = member(obj, key);
  return v != nullptr ? view(*v) : std::string_view();
}

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
