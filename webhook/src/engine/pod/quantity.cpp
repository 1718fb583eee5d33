#include "engine/pod/quantity.hpp"

#include <charconv>
#include <limits>
#include <string_view>

namespace gpua::engine {

namespace {

bool isSpace(char c) {
  return c == ' ' || (c >= '\t' && c <= '\r');
}

}  // namespace

std::optional<Quantity> quantityFromJson(const rapidjson::Value& v, QuantityError* why) {
  if (v.IsString()) {
    std::string_view s(v.GetString(), v.GetStringLength());
    while (!s.empty() && isSpace(s.front())) s.remove_prefix(1);
    while (!s.empty() && isSpace(s.back())) s.remove_suffix(1);
    return parseQuantity(s, why);
  }
  if (v.IsInt64() && v.GetInt64() != std::numeric_limits<int64_t>::min())
    return Quantity::ofUnits(v.GetInt64());
  if (v.IsNumber()) {  // a double, or a uint64 above int64: its shortest decimal text
    char buf[64];
    const auto r = v.IsUint64() ? std::to_chars(buf, buf + sizeof buf, v.GetUint64())
                                : std::to_chars(buf, buf + sizeof buf, v.GetDouble());
    return parseQuantity(std::string_view(buf, static_cast<std::size_t>(r.ptr - buf)), why);
  }
  if (why != nullptr) *why = QuantityError::Malformed;
  return std::nullopt;
}

std::optional<int64_t> parseWholeQuantity(const rapidjson::Value& v) {
  const auto q = quantityFromJson(v);
  if (!q || !q->whole() || q->units < 0 || q->units > kMaxWholeQuantity) return std::nullopt;
  return q->units;
}

}  // namespace gpua::engine
