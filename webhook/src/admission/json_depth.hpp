// A linear pre-scan for JSON nesting depth. RapidJSON's default parser recurses once per level
// and so does any code that walks the document (the engine): a body of 100k '[' must be refused
// before either runs, or it overflows the stack.
#pragma once

#include <cstddef>
#include <string_view>

namespace gpua::admission {

// Deepest AdmissionReview we accept. Real pods nest ~12 levels under the review envelope.
inline constexpr std::size_t kMaxJsonDepth = 64;

// True when `text` opens more than `limit` arrays/objects at once. Brackets inside strings
// (including after escaped quotes) do not count. Does not validate the JSON.
bool exceedsJsonDepth(std::string_view text, std::size_t limit = kMaxJsonDepth);

}  // namespace gpua::admission
