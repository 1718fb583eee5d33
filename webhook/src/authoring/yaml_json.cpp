#include "authoring/yaml_json.hpp"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <initializer_list>
#include <regex>
#include <string_view>

namespace gpua::authoring {
namespace {

using Alloc = rapidjson::Document::AllocatorType;

// Deep enough for any Kubernetes object, shallow enough for the recursion below.
constexpr int kMaxDepth = 200;

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

void setNumber(const YAML::Node& node, PlainKind kind, rapidjson::Value& out) {
  const std::string& s = node.Scalar();
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
  const double d =
      s.find_first_of("iInN") == std::string::npos ? std::strtod(s.c_str(), nullptr) : HUGE_VAL;
  if (!std::isfinite(d)) throw YamlValueError(node.Mark(), "not representable in JSON: " + s);
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
      setNumber(node, kind, out);
      return;
    case PlainKind::String:
      out.SetString(s.c_str(), static_cast<rapidjson::SizeType>(s.size()), alloc);
      return;
  }
}

void convert(const YAML::Node& node, rapidjson::Value& out, Alloc& alloc, int depth);

void mapToJson(const YAML::Node& node, rapidjson::Value& out, Alloc& alloc, int depth) {
  out.SetObject();
  for (const auto& kv : node) {
    if (!kv.first.IsScalar()) throw YamlValueError(kv.first.Mark(), "mapping keys must be strings");
    const std::string& key = kv.first.Scalar();
    if (out.HasMember(key)) throw YamlValueError(kv.first.Mark(), "duplicate key \"" + key + "\"");
    rapidjson::Value k(key.c_str(), static_cast<rapidjson::SizeType>(key.size()), alloc);
    rapidjson::Value v;
    convert(kv.second, v, alloc, depth + 1);
    out.AddMember(k, v, alloc);
  }
}

void convert(const YAML::Node& node, rapidjson::Value& out, Alloc& alloc, int depth) {
  if (depth > kMaxDepth) throw YamlValueError(node.Mark(), "nesting too deep");
  switch (node.Type()) {
    case YAML::NodeType::Undefined:
    case YAML::NodeType::Null:
      out.SetNull();
      return;
    case YAML::NodeType::Scalar:
      scalarToJson(node, out, alloc);
      return;
    case YAML::NodeType::Sequence:
      out.SetArray();
      for (const auto& item : node) {
        rapidjson::Value v;
        convert(item, v, alloc, depth + 1);
        out.PushBack(v, alloc);
      }
      return;
    case YAML::NodeType::Map:
      mapToJson(node, out, alloc, depth);
      return;
  }
}

}  // namespace

void yamlToJson(const YAML::Node& node, rapidjson::Value& out, Alloc& allocator) {
  convert(node, out, allocator, 0);
}

bool resolvesToNonString(std::string_view text) {
  return resolvePlain(text) != PlainKind::String;
}

}  // namespace gpua::authoring
