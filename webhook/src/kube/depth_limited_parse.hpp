// Parses JSON into a rapidjson::Document while refusing nesting deeper than a limit. The
// recursive parser calls StartObject/StartArray before it descends, so refusing there bounds the
// recursion (and every later walk of the document, such as the engine's) without a separate
// pre-scan of the body.
#pragma once

#include <rapidjson/document.h>

#include <cstddef>
#include <string>
#include <string_view>

#include "kube/json_field_table.hpp"

namespace gpua::kube {

// Deepest JSON we accept. Real pods nest ~12 levels under an AdmissionReview envelope, and
// about as deep under a list page or a watch event.
inline constexpr std::size_t kMaxJsonDepth = 64;

// Who reads in situ: the scanner (kube/json_scanner.hpp: faster, and RapidJSON's reader judges
// whatever it refuses, so errors are RapidJSON's), or RapidJSON's reader alone (the oracle the
// scanner is tested against).
enum class InSituReader { Scanner, RapidJson };

struct DepthLimitedParse {
  rapidjson::ParseResult result;  // the reader's result (kParseErrorTermination when too deep)
  bool tooDeep = false;
};

// Parses `text` in situ: it is modified, `doc`'s strings point into it, and its capacity may
// grow (RapidJSON's SSE2 scanning reads aligned 16-byte blocks past the terminating NUL, so the
// allocation gets that much slack). Parsing stops at an embedded NUL: callers reject those first.
DepthLimitedParse parseInSituWithDepthLimit(std::string& text, rapidjson::Document& doc,
                                            std::size_t maxDepth = kMaxJsonDepth,
                                            InSituReader reader = InSituReader::Scanner);

// The same, keeping only what `keep` keeps (kube/json_field_table.hpp): the reader still
// visits every byte, so errors, their offsets and the depth limit are the full parse's.
DepthLimitedParse parseInSituWithDepthLimit(std::string& text, rapidjson::Document& doc,
                                            const JsonKeep& keep, JsonChooser chooser,
                                            std::size_t maxDepth = kMaxJsonDepth,
                                            InSituReader reader = InSituReader::Scanner);

// The scanner alone (kube/json_scanner.hpp): true when it read `text` into `doc`; false, with
// `text` as it was, when it refused (invalid JSON, a raw control byte, excess depth...), and
// RapidJSON's reader is to judge. A text it reads has no control byte but TAB, LF and CR
// between values, so a caller's control-byte check is only needed when it refuses.
bool scanInSitu(std::string& text, rapidjson::Document& doc, std::size_t maxDepth = kMaxJsonDepth);
bool scanInSitu(std::string& text, rapidjson::Document& doc, const JsonKeep& keep,
                JsonChooser chooser, std::size_t maxDepth = kMaxJsonDepth);

// Parses a copy: `doc` owns its strings and `text` is read exactly to its length.
DepthLimitedParse parseWithDepthLimit(std::string_view text, rapidjson::Document& doc,
                                      std::size_t maxDepth = kMaxJsonDepth);

}  // namespace gpua::kube
