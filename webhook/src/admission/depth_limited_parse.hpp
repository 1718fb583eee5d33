// Parses JSON into a rapidjson::Document while refusing nesting deeper than a limit. The
// recursive parser calls StartObject/StartArray before it descends, so refusing there bounds the
// recursion (and every later walk of the document, such as the engine's) without a separate
// pre-scan of the body.
#pragma once

#include <rapidjson/document.h>

#include <cstddef>

namespace gpua::admission {

// Deepest AdmissionReview we accept. Real pods nest ~12 levels under the review envelope.
inline constexpr std::size_t kMaxJsonDepth = 64;

struct DepthLimitedParse {
  rapidjson::ParseResult result;  // the reader's result (kParseErrorTermination when too deep)
  bool tooDeep = false;
};

// Parses the NUL-terminated `text` in situ (it is modified, and `doc`'s strings point into it).
DepthLimitedParse parseInSituWithDepthLimit(char* text, rapidjson::Document& doc,
                                            std::size_t maxDepth = kMaxJsonDepth);

}  // namespace gpua::admission
