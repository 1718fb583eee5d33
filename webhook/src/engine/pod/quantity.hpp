// Kubernetes resource quantities as the engine reads them from pods. The exact parser and the
// Quantity type are kube/quantity.hpp (the loader reads quantities too); this header adds the
// JSON side and makes the names available in gpua::engine.
#pragma once

#include <rapidjson/document.h>

#include <cstdint>
#include <optional>

#include "kube/quantity.hpp"

namespace gpua::engine {

using kube::parseQuantity;
using kube::Quantity;
using kube::QuantityError;
using kube::toDecimalString;

// A quantity as found in a pod: a JSON string (trimmed of ASCII whitespace, as Quantity's
// UnmarshalJSON does) or a JSON number (read as its shortest decimal text). Anything else is
// Malformed.
std::optional<Quantity> quantityFromJson(const rapidjson::Value& v, QuantityError* why = nullptr);

// The largest whole quantity an extended resource (a GPU count) may have here.
inline constexpr int64_t kMaxWholeQuantity = int64_t{1} << 53;

// The whole, non-negative value of an extended-resource quantity ("2", 2, "1k", "2000m", "1e3",
// "2T", "1Ti"); nullopt when it is fractional ("0.5", "500m"), negative, malformed or larger
// than kMaxWholeQuantity.
std::optional<int64_t> parseWholeQuantity(const rapidjson::Value& v);

}  // namespace gpua::engine
