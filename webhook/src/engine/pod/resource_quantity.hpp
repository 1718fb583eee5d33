// CPU and memory quantities ("500m", "4Gi", "1.5", "2e3") in thousandths of the base unit, as
// Kubernetes' Quantity.MilliValue() (rounded up). For sizing a pod against a node's shape; a
// thin view of the exact parser in quantity.hpp, which GPU counts use too.
#pragma once

#include <rapidjson/document.h>

#include <cstdint>
#include <optional>
#include <string_view>

namespace gpua::engine {

// Nullopt when malformed, negative or beyond int64 thousandths.
std::optional<int64_t> quantityMilli(std::string_view s);
std::optional<int64_t> quantityMilli(const rapidjson::Value& v);

}  // namespace gpua::engine
