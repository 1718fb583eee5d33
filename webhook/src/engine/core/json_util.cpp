#include "engine/core/json_util.hpp"

#include "kube/json_special.hpp"

namespace gpua::engine::json {

namespace {

// What the writer escapes (UTF-8 to UTF-8, default flags): control characters, '"' and '\\'.
// Every other byte, non-ASCII included, is written as it is.
bool needsEscape(std::string_view s) {
  const char* end = s.data() + s.size();
  return kube::findJsonSpecial(s.data(), end) != end;
}

}  // namespace

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

void appendEscaped(std::string& out, std::string_view s) {
  if (!needsEscape(s)) {
    out.append(s);
    return;
  }
  // The writer always quotes: write the literal, then drop its two quotes (a rare path).
  const std::size_t at = out.size();
  appendQuoted(out, s);
  out.pop_back();
  out.erase(at, 1);
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
