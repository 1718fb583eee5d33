#include "engine/resource_quantity.hpp"

#include <cmath>

namespace gpua::engine {

namespace {

// Power-of-ten exponent, or binary multiplier, of a quantity suffix.
struct Suffix {
  std::string_view text;
  int decimalExponent;
  long double binary;  // 0 for decimal suffixes
};

constexpr Suffix kSuffixes[] = {
    {"Ki", 0, 1024.0L},
    {"Mi", 0, 1048576.0L},
    {"Gi", 0, 1073741824.0L},
    {"Ti", 0, 1099511627776.0L},
    {"Pi", 0, 1125899906842624.0L},
    {"Ei", 0, 1152921504606846976.0L},
    {"n", -9, 0},
    {"u", -6, 0},
    {"m", -3, 0},
    {"k", 3, 0},
    {"M", 6, 0},
    {"G", 9, 0},
    {"T", 12, 0},
    {"P", 15, 0},
    {"E", 18, 0},
    {"", 0, 0},
};

std::optional<long double> scale(std::string_view rest) {
  if (!rest.empty() && (rest.front() == 'e' || rest.front() == 'E') && rest.size() > 1) {
    int exponent = 0;
    std::size_t i = 1;
    const bool negative = rest[i] == '-';
    if (rest[i] == '-' || rest[i] == '+') ++i;
    if (i == rest.size()) return std::nullopt;
    for (; i < rest.size(); ++i) {
      if (rest[i] < '0' || rest[i] > '9' || exponent > 100) return std::nullopt;
      exponent = exponent * 10 + (rest[i] - '0');
    }
    return std::pow(10.0L, negative ? -exponent : exponent);
  }
  for (const auto& s : kSuffixes)
    if (s.text == rest) return s.binary > 0 ? s.binary : std::pow(10.0L, s.decimalExponent);
  return std::nullopt;
}

}  // namespace

std::optional<int64_t> quantityMilli(std::string_view s) {
  if (!s.empty() && s.front() == '+') s.remove_prefix(1);
  long double number = 0;
  std::size_t i = 0;
  bool digits = false;
  for (; i < s.size() && s[i] >= '0' && s[i] <= '9'; ++i, digits = true)
    number = number * 10 + (s[i] - '0');
  if (i < s.size() && s[i] == '.') {
    long double place = 0.1L;
    for (++i; i < s.size() && s[i] >= '0' && s[i] <= '9'; ++i, digits = true, place /= 10)
      number += (s[i] - '0') * place;
  }
  if (!digits) return std::nullopt;
  const auto factor = scale(s.substr(i));
  if (!factor) return std::nullopt;
  const long double milli = std::ceil(number * *factor * 1000 - 1e-6L);
  if (!(milli >= 0) || milli > 9.2e18L) return std::nullopt;
  return static_cast<int64_t>(milli);
}

std::optional<int64_t> quantityMilli(const rapidjson::Value& v) {
  if (v.IsString()) return quantityMilli(std::string_view(v.GetString(), v.GetStringLength()));
  if (v.IsNumber()) {
    const long double milli = std::ceil(static_cast<long double>(v.GetDouble()) * 1000 - 1e-6L);
    if (!(milli >= 0) || milli > 9.2e18L) return std::nullopt;
    return static_cast<int64_t>(milli);
  }
  return std::nullopt;
}

}  // namespace gpua::engine
