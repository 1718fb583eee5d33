// JSON string escaping for log lines: always valid JSON and valid UTF-8, whatever the input.
#pragma once

#include <chrono>
#include <string>
#include <string_view>

namespace gpua::telemetry {

// Appends `text` as a quoted JSON string: quotes, backslashes and control characters escaped,
// invalid UTF-8 replaced by U+FFFD.
void appendJsonString(std::string& out, std::string_view text);

// True when appendJsonString writes `text` as it is between its quotes: printable ASCII without
// '"' or '\\' (the runs it copies whole).
bool isPlainJsonText(std::string_view text);

// "2026-11-30T09:34:38.123456Z": RFC 3339, UTC, microseconds.
std::string formatRfc3339Micros(std::chrono::system_clock::time_point t);

// The same, appended to `out`. Remembers the last second formatted on this thread, so a busy
// logger formats the date once per second and only the microseconds per line.
void appendRfc3339Micros(std::string& out, std::chrono::system_clock::time_point t);

}  // namespace gpua::telemetry
