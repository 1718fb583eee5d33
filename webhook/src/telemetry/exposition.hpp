// Pieces of the Prometheus text exposition format 0.0.4.
#pragma once

#include <string>
#include <string_view>

namespace gpua::telemetry {

inline constexpr std::string_view kExpositionContentType =
    "text/plain; version=0.0.4; charset=utf-8";

// Label values: backslash, double quote and newline escaped.
void appendLabelValue(std::string& out, std::string_view value);

// HELP text: backslash and newline escaped.
void appendHelp(std::string& out, std::string_view help);

// Whole numbers as integers, others in shortest round-trip form; +Inf, -Inf and NaN as Prometheus
// spells them.
void appendNumber(std::string& out, double value);

// [a-zA-Z_:][a-zA-Z0-9_:]*
bool isValidMetricName(std::string_view name);

// [a-zA-Z_][a-zA-Z0-9_]*, not starting with "__" (reserved), not "le" or "quantile".
bool isValidLabelName(std::string_view name);

}  // namespace gpua::telemetry
