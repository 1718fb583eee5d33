#include "engine/quantity.hpp"

#include <cmath>
#include <string_view>

namespace gpua::engine {

namespace {

constexpr int64_t kMax = int64_t{1} << 53;  // beyond this no GPU count is meaningful

// Multiplier of a Kubernetes quantity suffix, in thousandths; 0 when unknown.
int64_t suffixMilli(std::string_view s) {
  struct Entry {
    std::string_view suffix;
    int64_t milli;
  };
  static constexpr Entry table[] = {
      {"", 1000},
      {"m", 1},
      {"k", 1000LL * 1000},
      {"M", 1000LL * 1000000},
      {"G", 1000LL * 1000000000},
      {"Ki", 1000LL * 1024},
      {"Mi", 1000LL * 1024 * 1024},
      {"Gi", 1000LL * 1024 * 1024 * 1024},
  };
  for (const auto& e : table)
    if (e.suffix == s) return e.milli;
  return 0;
}

std::optional<int64_t> parseString(std::string_view s) {
  if (!s.empty() && s.front() == '+') s.remove_prefix(1);
  int64_t whole = 0;
  std::size_t i = 0;
  for (; i < s.size() && s[i] >= '0' && s[i] <= '9'; ++i) {
    whole = whole * 10 + (s[i] - '0');
    if (whole > kMax) return std::nullopt;
  }
  if (i == 0) return std::nullopt;
  int64_t fractionMilli = 0;  // the fraction in thousandths; finer digits must be zero
  if (i < s.size() && s[i] == '.') {
    ++i;
    int64_t scale = 100;
    for (; i < s.size() && s[i] >= '0' && s[i] <= '9'; ++i) {
      if (scale > 0) {
        fractionMilli += (s[i] - '0') * scale;
        scale /= 10;
      } else if (s[i] != '0') {
        return std::nullopt;
      }
    }
  }
  const int64_t multiplier = suffixMilli(s.substr(i));
  if (multiplier == 0) return std::nullopt;
  // Work in thousandths so that "1.5k" and "2000m" come out exact.
  if (whole > kMax / (multiplier > 1000 ? multiplier / 1000 : 1)) return std::nullopt;
  const int64_t milli = whole * multiplier + fractionMilli * multiplier / 1000;
  if ((fractionMilli * multiplier) % 1000 != 0 || milli % 1000 != 0) return std::nullopt;
  return milli / 1000;
}

}  // namespace

std::optional<int64_t> parseWholeQuantity(const rapidjson::Value& v) {
  if (v.IsInt64()) {
    const int64_t n = v.GetInt64();
    if (n < 0 || n > kMax) return std::nullopt;
    return n;
  }
  if (v.IsNumber()) {
    const double d = v.GetDouble();
    if (!(d >= 0) || d > static_cast<double>(kMax) || std::floor(d) != d) return std::nullopt;
    return static_cast<int64_t>(d);
  }
  if (v.IsString()) return parseString(std::string_view(v.GetString(), v.GetStringLength()));
  return std::nullopt;
}

}  // namespace gpua::engine
