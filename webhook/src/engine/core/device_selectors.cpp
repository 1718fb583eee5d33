#include "engine/core/device_selectors.hpp"

#include <algorithm>
#include <cctype>

namespace gpua::engine {

namespace {

std::size_t skipSpaces(std::string_view s, std::size_t i) {
  while (i < s.size() && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n')) ++i;
  return i;
}

// A CEL string literal at `i` ('x' or "x", no escapes): its value, `i` moved past it.
std::optional<std::string> literalAt(std::string_view s, std::size_t& i) {
  i = skipSpaces(s, i);
  if (i >= s.size() || (s[i] != '\'' && s[i] != '"')) return std::nullopt;
  const char quote = s[i];
  const std::size_t end = s.find(quote, i + 1);
  if (end == std::string_view::npos) return std::nullopt;
  const std::string_view value = s.substr(i + 1, end - i - 1);
  if (value.find('\\') != std::string_view::npos) return std::nullopt;
  i = end + 1;
  return std::string(value);
}

bool takes(std::string_view s, std::size_t& i, std::string_view token) {
  i = skipSpaces(s, i);
  if (s.substr(i, token.size()) != token) return false;
  i += token.size();
  return true;
}

// After the accessor: `== 'v'` or `in ['a', 'b']`.
std::vector<std::string> comparedValues(std::string_view s, std::size_t i) {
  if (takes(s, i, "==")) {
    if (auto v = literalAt(s, i)) return {*v};
    return {};
  }
  if (!takes(s, i, "in") || !takes(s, i, "[")) return {};
  std::vector<std::string> values;
  while (true) {
    auto v = literalAt(s, i);
    if (!v) return {};
    values.push_back(std::move(*v));
    if (takes(s, i, "]")) return values;
    if (!takes(s, i, ",")) return {};
  }
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

// `device.attributes[<domain>].<name>` or `[<name>]` at the start of `s`: the qualified name,
// `i` moved past the accessor.
std::optional<std::string> accessorAt(std::string_view s, std::size_t& i) {
  constexpr std::string_view kAccessor = "device.attributes[";
  if (!s.substr(i).starts_with(kAccessor)) return std::nullopt;
  i += kAccessor.size();
  auto domain = literalAt(s, i);
  if (!domain || !takes(s, i, "]")) return std::nullopt;
  if (takes(s, i, "[")) {
    auto name = literalAt(s, i);
    if (!name || !takes(s, i, "]")) return std::nullopt;
    return *domain + "/" + *name;
  }
  if (!takes(s, i, ".")) return std::nullopt;
  i = skipSpaces(s, i);
  const std::size_t start = i;
  while (i < s.size() && (std::isalnum(static_cast<unsigned char>(s[i])) || s[i] == '_')) ++i;
  if (i == start) return std::nullopt;
  return *domain + "/" + std::string(s.substr(start, i - start));
}

// One conjunct, the whole of `c`.
std::optional<bool> conjunctHolds(std::string_view c, std::string_view driver,
                                  const DeviceAttributes& attributes) {
  std::size_t i = 0;
  if (takes(c, i, "device.driver")) {
    if (!takes(c, i, "==")) return std::nullopt;
    auto value = literalAt(c, i);
    if (!value || skipSpaces(c, i) != c.size()) return std::nullopt;
    return *value == driver;
  }
  auto name = accessorAt(c, i);
  if (!name) return std::nullopt;
  std::vector<std::string> values;
  std::size_t end = i;
  if (takes(c, end, "==")) {
    auto v = literalAt(c, end);
    if (!v) return std::nullopt;
    values.push_back(std::move(*v));
  } else {
    values = comparedValues(c, i);
    if (values.empty()) return std::nullopt;
    end = c.rfind(']') + 1;
  }
  if (skipSpaces(c, end) != c.size()) return std::nullopt;
  const auto it = attributes.find(*name);
  return it != attributes.end() &&
         std::find(values.begin(), values.end(), it->second) != values.end();
}

}  // namespace

std::vector<std::string> pinnedAttributeValues(std::string_view expr,
                                               std::string_view qualifiedAttribute) {
  const std::size_t slash = qualifiedAttribute.rfind('/');
  if (slash == std::string_view::npos) return {};
  const std::string_view domain = qualifiedAttribute.substr(0, slash);
  const std::string_view attr = qualifiedAttribute.substr(slash + 1);
  // A disjunction or negation could make the pinned value one choice among others.
  if (expr.find("||") != std::string_view::npos || expr.find('!') != std::string_view::npos)
    return {};
  constexpr std::string_view kAccessor = "device.attributes[";
  for (std::size_t at = expr.find(kAccessor); at != std::string_view::npos;
       at = expr.find(kAccessor, at + 1)) {
    std::size_t i = at + kAccessor.size();
    auto d = literalAt(expr, i);
    if (!d || *d != domain || !takes(expr, i, "]")) continue;
    bool named = false;
    if (takes(expr, i, ".")) {
      i = skipSpaces(expr, i);
      named = expr.substr(i, attr.size()) == attr;
      i += attr.size();
      // The name must end there: "profile" must not match "profileName".
      if (named && i < expr.size() &&
          (std::isalnum(static_cast<unsigned char>(expr[i])) || expr[i] == '_'))
        named = false;
    } else if (takes(expr, i, "[")) {
      auto a = literalAt(expr, i);
      named = a && *a == attr && takes(expr, i, "]");
    }
    if (!named) continue;
    if (auto values = comparedValues(expr, i); !values.empty()) return values;
  }
  return {};
}

std::optional<bool> selectorHolds(std::string_view expr, std::string_view driver,
                                  const DeviceAttributes& attributes) {
  if (expr.find("||") != std::string_view::npos || expr.find('!') != std::string_view::npos ||
      expr.find('(') != std::string_view::npos)
    return std::nullopt;
  bool all = true;
  while (true) {
    const std::size_t at = expr.find("&&");
    const auto holds = conjunctHolds(trim(expr.substr(0, at)), driver, attributes);
    if (!holds) return std::nullopt;
    all = all && *holds;
    if (at == std::string_view::npos) return all;
    expr.remove_prefix(at + 2);
  }
}

std::optional<bool> selectorsHold(const std::vector<std::string>& expressions,
                                  std::string_view driver, const DeviceAttributes& attributes) {
  bool unknown = false;
  for (const auto& e : expressions) {
    const auto holds = selectorHolds(e, driver, attributes);
    if (holds && !*holds) return false;
    unknown = unknown || !holds;
  }
  if (unknown) return std::nullopt;
  return true;
}

}  // namespace gpua::engine
