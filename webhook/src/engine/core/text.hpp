// Text helpers for messages users read: safe quoting of user-supplied names and numbers
// without useless decimals.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace gpua::engine::text {

// `"name"` with control characters replaced and long names cut (at a UTF-8 boundary), so a
// hostile pod name can neither break the one-line rule nor bloat a warning.
std::string quoted(std::string_view s);
// The same, appended to `out`.
void appendQuoted(std::string& out, std::string_view s);

// 14 -> "14", 2.0/7 -> "0.29", 1.5 -> "1.5".
std::string number(double v);
void appendNumber(std::string& out, double v);  // the same, appended

// "a, b, c"
std::string join(std::span<const std::string> items, std::string_view separator = ", ");
// The same, appended to `out`.
void appendJoined(std::string& out, std::span<const std::string> items,
                  std::string_view separator = ", ");

// Replaces control characters by spaces and cuts at `maxBytes` (UTF-8 safe).
std::string oneLine(std::string_view s, std::size_t maxBytes);
// The same, appended to `out` (no copy made when `s` is one line already).
void appendOneLine(std::string& out, std::string_view s, std::size_t maxBytes);
// True when oneLine(s, maxBytes) would return s unchanged (short printable ASCII, what the
// engine's own messages almost always are): callers skip the copy.
bool isOneLine(std::string_view s, std::size_t maxBytes);

}  // namespace gpua::engine::text
