#include "engine/pod/resource_quantity.hpp"

#include "engine/pod/quantity.hpp"

namespace gpua::engine {

namespace {

// The exact parser (quantity.hpp) does the grammar and the rounding: no floating point here.
std::optional<int64_t> milliOf(const std::optional<Quantity>& q) {
  if (!q || q->negative()) return std::nullopt;
  return q->milliValue();
}

}  // namespace

std::optional<int64_t> quantityMilli(std::string_view s) {
  return milliOf(parseQuantity(s));
}

std::optional<int64_t> quantityMilli(const rapidjson::Value& v) {
  return milliOf(quantityFromJson(v));
}

}  // namespace gpua::engine
