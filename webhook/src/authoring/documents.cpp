#include "authoring/documents.hpp"

#include <rapidjson/prettywriter.h>
#include <rapidjson/writer.h>
#include <yaml-cpp/yaml.h>

#include <fstream>
#include <iostream>
#include <iterator>
#include <sstream>

#include "authoring/yaml_json.hpp"
#include "engine/core/json_util.hpp"
#include "kube/json_parse.hpp"

namespace gpua::authoring {
namespace {

std::string location(const std::string& name, const YAML::Mark& mark) {
  if (mark.is_null()) return name;
  return name + ":" + std::to_string(mark.line + 1) + ":" + std::to_string(mark.column + 1);
}

rapidjson::Document parseJson(std::string_view text, const std::string& name) {
  rapidjson::Document doc;
  if (const auto parsed = kube::parseJson(text, doc); !parsed.ok()) {
    const std::size_t offset = parsed.offset;
    int line = 1, column = 1;
    for (std::size_t i = 0; i < offset && i < text.size(); ++i) {
      if (text[i] == '\n') {
        ++line;
        column = 1;
      } else {
        ++column;
      }
    }
    throw InputError(name + ":" + std::to_string(line) + ":" + std::to_string(column) +
                     ": invalid JSON: " + parsed.reason);
  }
  return doc;
}

rapidjson::Document parseYaml(std::string_view text, const std::string& name) {
  std::vector<YAML::Node> docs;
  try {
    docs = YAML::LoadAll(std::string(text));
  } catch (const YAML::Exception& e) {
    throw InputError(location(name, e.mark) + ": invalid YAML: " + e.msg);
  }
  if (docs.empty()) throw InputError(name + ": empty document");
  if (docs.size() > 1)
    throw InputError(name + ": holds " + std::to_string(docs.size()) +
                     " YAML documents; give one object per file");
  rapidjson::Document doc;
  try {
    yamlToJson(docs.front(), doc, doc.GetAllocator());
  } catch (const YamlValueError& e) {
    throw InputError(location(name, e.mark()) + ": " + e.what());
  }
  return doc;
}

void emitYaml(YAML::Emitter& out, const rapidjson::Value& v) {
  if (v.IsObject()) {
    if (v.MemberCount() == 0) {
      out << YAML::Flow << YAML::BeginMap << YAML::EndMap;
      return;
    }
    out << YAML::BeginMap;
    for (const auto& m : v.GetObject()) {
      out << YAML::Key;
      emitYaml(out, m.name);
      out << YAML::Value;
      emitYaml(out, m.value);
    }
    out << YAML::EndMap;
  } else if (v.IsArray()) {
    if (v.Empty()) {
      out << YAML::Flow << YAML::BeginSeq << YAML::EndSeq;
      return;
    }
    out << YAML::BeginSeq;
    for (const auto& item : v.GetArray()) emitYaml(out, item);
    out << YAML::EndSeq;
  } else if (v.IsString()) {
    const std::string s(v.GetString(), v.GetStringLength());
    // A string a YAML reader would turn into a number, bool or null must be quoted.
    if (resolvesToNonString(s))
      out << YAML::DoubleQuoted << s;
    else
      out << s;
  } else if (v.IsBool()) {
    out << (v.GetBool() ? "true" : "false");
  } else if (v.IsNull()) {
    out << YAML::Null;
  } else if (v.IsInt64()) {
    out << v.GetInt64();
  } else if (v.IsUint64()) {
    out << v.GetUint64();
  } else {
    out << toJson(v, false);  // shortest round-trip form of a double
  }
}

}  // namespace

rapidjson::Document parseDocument(std::string_view text, const std::string& name) {
  const auto first = text.find_first_not_of(" \t\r\n");
  if (first == std::string_view::npos) throw InputError(name + ": empty document");
  if (text[first] == '{' || text[first] == '[') return parseJson(text, name);
  return parseYaml(text, name);
}

std::string readTextFile(const std::string& path) {
  if (path == "-")
    return std::string(std::istreambuf_iterator<char>(std::cin), std::istreambuf_iterator<char>());
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path + ": cannot open file");
  std::ostringstream ss;
  ss << in.rdbuf();
  if (in.bad()) throw InputError(path + ": read error");
  return ss.str();
}

rapidjson::Document readDocumentFile(const std::string& path) {
  return parseDocument(readTextFile(path), path == "-" ? "<stdin>" : path);
}

std::string toYaml(const rapidjson::Value& value) {
  YAML::Emitter out;
  out.SetIndent(2);
  out.SetSeqFormat(YAML::Block);
  out.SetMapFormat(YAML::Block);
  emitYaml(out, value);
  std::string s = out.c_str();
  if (s.empty() || s.back() != '\n') s += '\n';
  return s;
}

// Not into a rapidjson::StringBuffer: with RAPIDJSON_SSE2 its writer's 16-byte string loop lets
// the control bytes 0x1A..0x1F through raw (not JSON). The engine's string stream takes the
// writer's own escaping (engine/core/json_util.hpp).
std::string toJson(const rapidjson::Value& value, bool pretty) {
  std::string out;
  if (pretty) {
    engine::json::StringAppender stream(out);
    rapidjson::PrettyWriter<engine::json::StringAppender> w(stream);
    w.SetIndent(' ', 2);
    value.Accept(w);
    stream.Flush();
  } else {
    engine::json::appendSerialized(out, value);
  }
  return out;
}

}  // namespace gpua::authoring
