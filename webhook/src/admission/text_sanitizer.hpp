// Makes arbitrary text safe for a single-line field the apiserver shows to people (warnings,
// denial messages): valid UTF-8, no control characters or newlines, bounded length.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace gpua::admission {

// Invalid UTF-8 becomes U+FFFD; control characters (C0, DEL, C1), newlines and tabs become a
// single space (runs collapse); leading/trailing spaces go. When the result exceeds maxBytes it
// is cut at a character boundary and ends with "...", staying within maxBytes.
std::string sanitizeLine(std::string_view text, std::size_t maxBytes);

// True when sanitizeLine(text, maxBytes) is `text` itself: short enough, printable ASCII, single
// spaces between words only (what the engine's warnings and messages almost always are), so a
// writer can use it without the copy.
bool isCleanLine(std::string_view text, std::size_t maxBytes);

}  // namespace gpua::admission
