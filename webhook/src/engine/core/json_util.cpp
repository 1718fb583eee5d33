#include "engine/core/json_util.hpp"

namespace gpua::engine::json {

bool needsEscape(std::string_view s) {
  for (const char c : s)
    if (static_cast<unsigned char>(c) < 0x20 || c == '"' || c == '\\') return true;
  return false;
}

void appendSerialized(std::string& out, const Value& v) {
  AppendWriter writer(out);
  v.Accept(writer);
}

void appendQuoted(std::string& out, std::string_view s) {
  // Paths, names and labels almost never need escaping: one append instead of the writer's
  // push_back per character, with the same bytes.
  if (!needsEscape(s)) {
    out.push_back('"');
    out.append(s);
    out.push_back('"');
    return;
  }
  AppendWriter writer(out);
  writer.String(s.data(), static_cast<rapidjson::SizeType>(s.size()));
}

std::string serialize(const Value& v) {
  std::string out;
  appendSerialized(out, v);
  return out;
}

std::string quoteString(std::string_view s) {
  std::string out;
  out.reserve(s.size() + 2);
  appendQuoted(out, s);
  return out;
}

}  // namespace gpua::engine::json
