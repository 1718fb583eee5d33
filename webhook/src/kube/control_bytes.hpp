// JSON text allows control bytes (U+0000..U+001F) only as the whitespace TAB, LF and CR between
// tokens (RFC 8259: a string must escape every one of them). RapidJSON 1.1's SSE2 string scanner
// stops only at bytes up to 0x19, so 0x1A..0x1F inside a string pass whenever they fall in an
// aligned 16-byte block and are refused elsewhere; this scan makes the answer one rule.
#pragma once

#include <cstddef>
#include <string_view>

namespace gpua::kube {

// The offset of the first byte below 0x20 other than TAB, LF and CR; npos when there is none.
// One SSE2 pass (64 bytes a step when none is below 0x20), far cheaper than the parse after it.
std::size_t findForbiddenControlByte(std::string_view text);

}  // namespace gpua::kube
