// Kubernetes resource quantities for extended resources, which must be whole numbers.
#pragma once

#include <rapidjson/document.h>

#include <cstdint>
#include <optional>

namespace gpua::engine {

// The whole, non-negative value of a quantity given as a JSON number (2) or string ("2", "1k",
// "2000m"); nullopt when it is fractional ("0.5", "500m"), negative, malformed or too large.
std::optional<int64_t> parseWholeQuantity(const rapidjson::Value& v);

}  // namespace gpua::engine
