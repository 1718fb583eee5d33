#include "kube/rfc3339.hpp"

#include <cstdint>

namespace gpua::kube {

namespace {

// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's days_from_civil).
int64_t daysFromCivil(int64_t y, int64_t m, int64_t d) {
  y -= m <= 2 ? 1 : 0;
  const int64_t era = (y >= 0 ? y : y - 399) / 400;
  const int64_t yoe = y - era * 400;
  const int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + doe - 719468;
}

// Reads `width` digits at `pos`; -1 when they are not all digits.
int64_t digits(std::string_view s, std::size_t pos, std::size_t width) {
  if (pos + width > s.size()) return -1;
  int64_t v = 0;
  for (std::size_t i = pos; i < pos + width; ++i) {
    if (s[i] < '0' || s[i] > '9') return -1;
    v = v * 10 + (s[i] - '0');
  }
  return v;
}

bool at(std::string_view s, std::size_t pos, char c) {
  return pos < s.size() && s[pos] == c;
}

}  // namespace

std::optional<double> parseRfc3339(std::string_view s) {
  const int64_t year = digits(s, 0, 4), month = digits(s, 5, 2), day = digits(s, 8, 2);
  const int64_t hour = digits(s, 11, 2), minute = digits(s, 14, 2), second = digits(s, 17, 2);
  if (year < 0 || month < 1 || month > 12 || day < 1 || day > 31 || hour < 0 || hour > 23 ||
      minute < 0 || minute > 59 || second < 0 || second > 60 || !at(s, 4, '-') || !at(s, 7, '-') ||
      !(at(s, 10, 'T') || at(s, 10, 't') || at(s, 10, ' ')) || !at(s, 13, ':') || !at(s, 16, ':'))
    return std::nullopt;
  double t = static_cast<double>(daysFromCivil(year, month, day) * 86400 + hour * 3600 +
                                 minute * 60 + second);
  std::size_t i = 19;
  if (at(s, i, '.')) {
    double scale = 0.1;
    const std::size_t start = ++i;
    for (; i < s.size() && s[i] >= '0' && s[i] <= '9'; ++i, scale /= 10) t += (s[i] - '0') * scale;
    if (i == start) return std::nullopt;
  }
  if (i + 1 == s.size() && (s[i] == 'Z' || s[i] == 'z')) return t;
  if (i + 6 != s.size() || !(s[i] == '+' || s[i] == '-') || !at(s, i + 3, ':')) return std::nullopt;
  const int64_t oh = digits(s, i + 1, 2), om = digits(s, i + 4, 2);
  if (oh < 0 || oh > 23 || om < 0 || om > 59) return std::nullopt;
  const double offset = static_cast<double>(oh * 3600 + om * 60);
  return s[i] == '+' ? t - offset : t + offset;
}

}  // namespace gpua::kube
