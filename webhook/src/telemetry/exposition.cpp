#include "telemetry/exposition.hpp"

#include <charconv>
#include <cmath>

namespace gpua::telemetry {

namespace {

bool isAlpha(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}
bool isDigit(char c) {
  return c >= '0' && c <= '9';
}

}  // namespace

void appendLabelValue(std::string& out, std::string_view value) {
  for (char c : value) {
    if (c == '\\')
      out += "\\\\";
    else if (c == '"')
      out += "\\\"";
    else if (c == '\n')
      out += "\\n";
    else
      out.push_back(c);
  }
}

void appendHelp(std::string& out, std::string_view help) {
  for (char c : help) {
    if (c == '\\')
      out += "\\\\";
    else if (c == '\n')
      out += "\\n";
    else
      out.push_back(c);
  }
}

void appendNumber(std::string& out, double value) {
  if (std::isnan(value)) {
    out += "NaN";
  } else if (std::isinf(value)) {
    out += value > 0 ? "+Inf" : "-Inf";
  } else {
    char buf[32];
    // Whole numbers (counts, Unix timestamps) print as integers: "1500000000", not "1.5e+09".
    const bool whole = std::trunc(value) == value && std::fabs(value) < 1e15;
    const auto res = whole ? std::to_chars(buf, buf + sizeof buf, static_cast<long long>(value))
                           : std::to_chars(buf, buf + sizeof buf, value);
    out.append(buf, res.ptr);
  }
}

bool isValidMetricName(std::string_view name) {
  if (name.empty() || !(isAlpha(name[0]) || name[0] == ':')) return false;
  for (char c : name)
    if (!(isAlpha(c) || isDigit(c) || c == ':')) return false;
  return true;
}

bool isValidLabelName(std::string_view name) {
  if (name.empty() || !isAlpha(name[0]) || name.starts_with("__")) return false;
  if (name == "le" || name == "quantile") return false;
  for (char c : name)
    if (!(isAlpha(c) || isDigit(c))) return false;
  return true;
}

}  // namespace gpua::telemetry
