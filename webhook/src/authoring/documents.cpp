#include "authoring/documents.hpp"

#include <rapidjson/prettywriter.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>
#include <yaml-cpp/yaml.h>

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <iterator>
#include <regex>
#include <sstream>

#include "kube/json_parse.hpp"

namespace gpua::authoring {
namespace {

using Alloc = rapidjson::Document::AllocatorType;

std::string location(const std::string& name, const YAML::Mark& mark) {
  if (mark.is_null()) return name;
  return name + ":" + std::to_string(mark.line + 1) + ":" + std::to_string(mark.column + 1);
}

bool isOneOf(std::string_view s, std::initializer_list<std::string_view> words) {
  for (auto w : words)
    if (s == w) return true;
  return false;
}

// YAML 1.1 resolution of a plain scalar, as go-yaml v2 does it (the subset Kubernetes manifests
// meet in practice).
enum class PlainKind { Null, True, False, Int, Float, String };

PlainKind resolvePlain(std::string_view s) {
  if (isOneOf(s, {"", "~", "null", "Null", "NULL"})) return PlainKind::Null;
  if (isOneOf(s, {"true", "True", "TRUE", "yes", "Yes", "YES", "on", "On", "ON", "y", "Y"}))
    return PlainKind::True;
  if (isOneOf(s, {"false", "False", "FALSE", "no", "No", "NO", "off", "Off", "OFF", "n", "N"}))
    return PlainKind::False;
  static const std::regex kInt("[-+]?(0|[1-9][0-9]*|0x[0-9a-fA-F]+|0[0-7]+)");
  static const std::regex kFloat(
      "[-+]?(\\.[0-9]+|[0-9]+(\\.[0-9]*)?)([eE][-+]?[0-9]+)?|[-+]?\\.(inf|Inf|INF)|\\.(nan|NaN|"
      "NAN)");
  const std::string str(s);
  if (std::regex_match(str, kInt)) return PlainKind::Int;
  if (std::regex_match(str, kFloat)) return PlainKind::Float;
  return PlainKind::String;
}

void setNumber(const std::string& s, PlainKind kind, rapidjson::Value& out) {
  if (kind == PlainKind::Int) {
    errno = 0;
    long long v = std::strtoll(s.c_str(), nullptr, 0);  // base 0: 0x hex, 0 octal (YAML 1.1)
    if (errno != ERANGE) {
      out.SetInt64(v);
      return;
    }
  }
  // YAML spells infinity and NaN ".inf" and ".nan", which strtod does not read (it would give
  // 0); JSON holds neither, so both are refused as kubectl refuses them.
  if (s.find_first_of("iInN") != std::string::npos)
    throw InputError("not representable in JSON: " + s);
  const double d = std::strtod(s.c_str(), nullptr);
  if (!std::isfinite(d)) throw InputError("not representable in JSON: " + s);
  out.SetDouble(d);
}

void scalarToJson(const YAML::Node& node, rapidjson::Value& out, Alloc& alloc) {
  const std::string& s = node.Scalar();
  // Quoted scalars ("!" tag) and explicitly tagged strings stay strings.
  const PlainKind kind = node.Tag() == "?" ? resolvePlain(s) : PlainKind::String;
  switch (kind) {
    case PlainKind::Null:
      out.SetNull();
      return;
    case PlainKind::True:
      out.SetBool(true);
      return;
    case PlainKind::False:
      out.SetBool(false);
      return;
    case PlainKind::Int:
    case PlainKind::Float:
      setNumber(s, kind, out);
      return;
    case PlainKind::String:
      out.SetString(s.c_str(), static_cast<rapidjson::SizeType>(s.size()), alloc);
      return;
  }
}

void yamlToJson(const YAML::Node& node, rapidjson::Value& out, Alloc& alloc,
                const std::string& name, int depth) {
  if (depth > 200) throw InputError(location(name, node.Mark()) + ": nesting too deep");
  switch (node.Type()) {
    case YAML::NodeType::Undefined:
    case YAML::NodeType::Null:
      out.SetNull();
      return;
    case YAML::NodeType::Scalar:
      try {
        scalarToJson(node, out, alloc);
      } catch (const InputError& e) {
        throw InputError(location(name, node.Mark()) + ": " + e.what());
      }
      return;
    case YAML::NodeType::Sequence:
      out.SetArray();
      for (const auto& item : node) {
        rapidjson::Value v;
        yamlToJson(item, v, alloc, name, depth + 1);
        out.PushBack(v, alloc);
      }
      return;
    case YAML::NodeType::Map:
      out.SetObject();
      for (const auto& kv : node) {
        if (!kv.first.IsScalar())
          throw InputError(location(name, kv.first.Mark()) + ": mapping keys must be strings");
        const std::string& key = kv.first.Scalar();
        if (out.HasMember(key))
          throw InputError(location(name, kv.first.Mark()) + ": duplicate key \"" + key + "\"");
        rapidjson::Value k(key.c_str(), static_cast<rapidjson::SizeType>(key.size()), alloc);
        rapidjson::Value v;
        yamlToJson(kv.second, v, alloc, name, depth + 1);
        out.AddMember(k, v, alloc);
      }
      return;
  }
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
  yamlToJson(docs.front(), doc, doc.GetAllocator(), name, 0);
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
    if (resolvePlain(s) != PlainKind::String)
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

std::string toJson(const rapidjson::Value& value, bool pretty) {
  rapidjson::StringBuffer buf;
  if (pretty) {
    rapidjson::PrettyWriter<rapidjson::StringBuffer> w(buf);
    w.SetIndent(' ', 2);
    value.Accept(w);
  } else {
    rapidjson::Writer<rapidjson::StringBuffer> w(buf);
    value.Accept(w);
  }
  return std::string(buf.GetString(), buf.GetSize());
}

}  // namespace gpua::authoring
