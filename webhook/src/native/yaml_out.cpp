#include "native/yaml_out.hpp"

#include <cstdio>

namespace gpua::native {

std::string quotedScalar(std::string_view s) {
  std::string out = "\"";
  for (const char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    if (ch == '"' || ch == '\\') {
      out += '\\';
      out += ch;
    } else if (ch == '\n') {
      out += "\\n";
    } else if (c < 0x20 || c == 0x7F) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04X", c);
      out += buf;
    } else {
      out += ch;
    }
  }
  return out + "\"";
}

Yaml Yaml::str(std::string s) {
  Yaml y;
  y.scalar_ = quotedScalar(s);
  return y;
}

Yaml Yaml::integer(int64_t v) {
  Yaml y;
  y.scalar_ = std::to_string(v);
  return y;
}

Yaml Yaml::boolean(bool v) {
  Yaml y;
  y.scalar_ = v ? "true" : "false";
  return y;
}

Yaml Yaml::map() {
  Yaml y;
  y.kind_ = Kind::Map;
  return y;
}

Yaml Yaml::list() {
  Yaml y;
  y.kind_ = Kind::List;
  return y;
}

Yaml& Yaml::set(std::string key, Yaml value) {
  entries_.emplace_back(std::move(key), std::move(value));
  return *this;
}

Yaml& Yaml::push(Yaml item) {
  items_.push_back(std::move(item));
  return *this;
}

// Writes the node's contents. A map's first key follows a list dash on the same line (inList).
void Yaml::write(std::string& out, int indent, bool inList) const {
  const std::string pad(static_cast<std::size_t>(indent), ' ');
  if (kind_ == Kind::Map) {
    bool first = true;
    for (const auto& [key, value] : entries_) {
      if (!(first && inList)) out += pad;
      first = false;
      out += key + ":";
      if (value.kind_ == Kind::Scalar) {
        out += " " + value.scalar_ + "\n";
      } else if (value.kind_ == Kind::Map && value.entries_.empty()) {
        out += " {}\n";
      } else if (value.kind_ == Kind::List && value.items_.empty()) {
        out += " []\n";
      } else {
        out += "\n";
        value.write(out, indent + 2, false);
      }
    }
    return;
  }
  for (const auto& item : items_) {
    out += pad + "- ";
    if (item.kind_ == Kind::Scalar) {
      out += item.scalar_ + "\n";
    } else if (item.kind_ == Kind::Map && !item.entries_.empty()) {
      item.write(out, indent + 2, true);
    } else {
      out += (item.kind_ == Kind::Map ? "{}" : "[]");
      out += "\n";
    }
  }
}

std::string Yaml::render() const {
  std::string out;
  if (kind_ == Kind::Scalar) return scalar_ + "\n";
  write(out, 0, false);
  return out;
}

}  // namespace gpua::native
