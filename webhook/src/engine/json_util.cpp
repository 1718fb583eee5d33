#include "engine/json_util.hpp"

namespace gpua::engine::json {

namespace {
// The same writer as `Writer`, over the appending stream. Writing one value never pushes onto
// its level stack for a scalar, and pushes lazily otherwise, so constructing it is free.
using AppendWriter = rapidjson::Writer<StringAppender>;
}  // namespace

void appendSerialized(std::string& out, const Value& v) {
  StringAppender stream{out};
  AppendWriter writer(stream);
  v.Accept(writer);
}

void appendQuoted(std::string& out, std::string_view s) {
  StringAppender stream{out};
  AppendWriter writer(stream);
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
