#include "policy/yaml_reader.hpp"

#include <charconv>

#include "policy/edit_distance.hpp"

namespace gpua::policy {

namespace {

// yaml-cpp tags quoted scalars "!" and plain ones "?": a quoted "8" is a string, not a number.
bool isQuoted(const YAML::Node& node) {
  return node.Tag() == "!";
}

std::string describe(const YAML::Node& node) {
  switch (node.Type()) {
    case YAML::NodeType::Undefined:
      return "nothing";
    case YAML::NodeType::Null:
      return "null";
    case YAML::NodeType::Sequence:
      return "a list";
    case YAML::NodeType::Map:
      return "a mapping";
    case YAML::NodeType::Scalar:
      break;
  }
  return (isQuoted(node) ? "string \"" : "\"") + node.Scalar() + "\"";
}

template <typename T>
std::optional<T> parseWhole(const std::string& text) {
  T value{};
  const char* begin = text.data();
  const char* end = begin + text.size();
  if (begin != end && *begin == '+') ++begin;  // YAML allows "+3"; from_chars does not
  auto [stop, ec] = std::from_chars(begin, end, value);
  if (ec != std::errc() || stop != end || begin == end) return std::nullopt;
  return value;
}

}  // namespace

std::string SourceLoc::where() const {
  std::string out = file;
  if (line > 0) out += ':' + std::to_string(line) + ':' + std::to_string(column);
  return out;
}

void report(Diagnostics& out, const SourceLoc& at, std::string message, std::string hint) {
  out.push_back({at.file, at.line, at.column, at.keyPath, std::move(message), std::move(hint)});
}

SourceLoc markLoc(const std::string& file, const YAML::Mark& mark, int lineOffset,
                  const std::string& keyPath) {
  return {file, mark.line < 0 ? 0 : mark.line + 1 + lineOffset, mark.column + 1, keyPath};
}

SourceLoc YamlReader::loc(const YAML::Node& node, const std::string& keyPath) const {
  return markLoc(file_, node.Mark(), lineOffset_, keyPath);
}

void YamlReader::error(const YAML::Node& node, const std::string& keyPath, std::string message,
                       std::string hint) {
  report(errors_, loc(node, keyPath), std::move(message), std::move(hint));
}

bool YamlReader::expectMap(const YAML::Node& node, const std::string& keyPath) {
  if (node.IsMap()) return true;
  error(node, keyPath, "expected a mapping, got " + describe(node));
  return false;
}

bool YamlReader::expectList(const YAML::Node& node, const std::string& keyPath) {
  if (node.IsSequence()) return true;
  std::string hint;
  if (node.IsScalar()) hint = "write a one-element list: [" + node.Scalar() + "]";
  error(node, keyPath, "expected a list, got " + describe(node), hint);
  return false;
}

std::optional<std::string> YamlReader::string(const YAML::Node& node, const std::string& keyPath) {
  if (node.IsScalar()) return node.Scalar();
  error(node, keyPath, "expected a string, got " + describe(node));
  return std::nullopt;
}

std::optional<std::string> YamlReader::name(const YAML::Node& node, const std::string& keyPath) {
  auto text = string(node, keyPath);
  if (text && text->empty()) {
    error(node, keyPath, "must not be empty");
    return std::nullopt;
  }
  return text;
}

std::optional<int64_t> YamlReader::integer(const YAML::Node& node, const std::string& keyPath,
                                           int64_t min) {
  std::optional<int64_t> value;
  if (node.IsScalar() && !isQuoted(node)) value = parseWhole<int64_t>(node.Scalar());
  if (!value) {
    error(node, keyPath, "expected an integer, got " + describe(node),
          node.IsScalar() && isQuoted(node) ? "remove the quotes" : "");
    return std::nullopt;
  }
  if (*value < min) {
    error(node, keyPath, "must be at least " + std::to_string(min) + ", got " + node.Scalar());
    return std::nullopt;
  }
  return value;
}

std::optional<double> YamlReader::number(const YAML::Node& node, const std::string& keyPath,
                                         double min) {
  std::optional<double> value;
  if (node.IsScalar() && !isQuoted(node)) value = parseWhole<double>(node.Scalar());
  if (!value) {
    error(node, keyPath, "expected a number, got " + describe(node),
          node.IsScalar() && isQuoted(node) ? "remove the quotes" : "");
    return std::nullopt;
  }
  if (!(*value >= min)) {  // also rejects NaN
    error(node, keyPath, "must be at least " + std::to_string(min) + ", got " + node.Scalar());
    return std::nullopt;
  }
  return value;
}

std::optional<bool> YamlReader::boolean(const YAML::Node& node, const std::string& keyPath) {
  if (node.IsScalar() && !isQuoted(node)) {
    if (node.Scalar() == "true") return true;
    if (node.Scalar() == "false") return false;
  }
  error(node, keyPath, "expected true or false, got " + describe(node));
  return std::nullopt;
}

std::vector<std::string> YamlReader::stringList(const YAML::Node& node,
                                                const std::string& keyPath) {
  std::vector<std::string> out;
  if (!expectList(node, keyPath)) return out;
  for (std::size_t i = 0; i < node.size(); ++i)
    if (auto s = name(node[i], indexPath(keyPath, i))) out.push_back(*s);
  return out;
}

std::vector<std::string> YamlReader::stringValues(const YAML::Node& node,
                                                  const std::string& keyPath) {
  std::vector<std::string> out;
  if (!expectList(node, keyPath)) return out;
  for (std::size_t i = 0; i < node.size(); ++i)
    if (auto s = string(node[i], indexPath(keyPath, i))) out.push_back(*s);
  return out;
}

std::map<std::string, std::string> YamlReader::stringMap(const YAML::Node& node,
                                                         const std::string& keyPath) {
  std::map<std::string, std::string> out;
  if (!expectMap(node, keyPath)) return out;
  for (auto it = node.begin(); it != node.end(); ++it) {
    auto key = name(it->first, keyPath);
    if (!key) continue;
    const std::string path = keyPath + "." + *key;
    auto value = string(it->second, path);
    if (!value) continue;
    if (!out.emplace(*key, *value).second) error(it->first, path, "duplicate key '" + *key + "'");
  }
  return out;
}

void YamlReader::unknownValue(const YAML::Node& node, const std::string& keyPath,
                              const std::string& text, const std::vector<std::string>& allowed) {
  error(node, keyPath, "unknown value '" + text + "'", suggestion(text, allowed));
}

MapReader::MapReader(YamlReader& reader, const YAML::Node& node, std::string keyPath,
                     std::vector<std::string> knownKeys)
    : reader_(reader), node_(node), keyPath_(std::move(keyPath)) {
  valid_ = reader_.expectMap(node_, keyPath_);
  if (!valid_) return;
  for (auto it = node_.begin(); it != node_.end(); ++it) {
    auto key = reader_.string(it->first, keyPath_);
    if (!key) continue;
    const std::string keyPathOfKey = path(*key);
    if (find(*key)) {
      reader_.error(it->first, keyPathOfKey, "duplicate key '" + *key + "'",
                    "a YAML mapping holds each key once; remove one");
      continue;
    }
    bool known = false;
    for (const auto& k : knownKeys) known = known || k == *key;
    if (!known) {
      reader_.error(it->first, keyPathOfKey, "unknown key '" + *key + "'",
                    suggestion(*key, knownKeys));
      continue;
    }
    entries_.emplace_back(*key, it->second);
  }
}

const YAML::Node* MapReader::find(std::string_view key) const {
  for (const auto& [k, v] : entries_)
    if (k == key) return &v;
  return nullptr;
}

YAML::Node MapReader::get(std::string_view key) const {
  const YAML::Node* value = find(key);
  return value ? *value : YAML::Node(YAML::NodeType::Undefined);
}

std::string MapReader::path(std::string_view key) const {
  return keyPath_.empty() ? std::string(key) : keyPath_ + "." + std::string(key);
}

SourceLoc MapReader::loc(std::string_view key) const {
  const YAML::Node* value = find(key);
  return value ? reader_.loc(*value, path(key)) : loc();
}

bool MapReader::require(std::string_view key) const {
  if (has(key)) return true;
  if (valid_) reader_.error(node_, path(key), "missing required field '" + std::string(key) + "'");
  return false;
}

std::string indexPath(const std::string& keyPath, std::size_t index) {
  return keyPath + "[" + std::to_string(index) + "]";
}

}  // namespace gpua::policy
