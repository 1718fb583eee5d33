#include "engine/json_util.hpp"

namespace gpua::engine::json {

std::string serialize(const Value& v) {
  rapidjson::StringBuffer buffer;
  Writer writer(buffer);
  v.Accept(writer);
  return std::string(buffer.GetString(), buffer.GetSize());
}

std::string quoteString(std::string_view s) {
  rapidjson::StringBuffer buffer;
  Writer writer(buffer);
  writeString(writer, s);
  return std::string(buffer.GetString(), buffer.GetSize());
}

}  // namespace gpua::engine::json
