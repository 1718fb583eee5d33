// The one way JSON text becomes a rapidjson::Document: control bytes (U+0000..U+001F other than
// TAB, LF and CR) are refused wherever they stand (kube/control_bytes.hpp), nesting is bounded
// before the recursive parser descends (kube/depth_limited_parse.hpp), and trailing data is an
// error. Used by the admission codec (in situ, on the request path), the cluster decoders (API
// pages, watch events, usage and node files) and the CLI.
#pragma once

#include <rapidjson/document.h>

#include <cstddef>
#include <string>
#include <string_view>

#include "kube/depth_limited_parse.hpp"

namespace gpua::kube {

struct JsonParseResult {
  enum class Problem { None, ControlByte, TooDeep, Invalid };
  Problem problem = Problem::None;
  std::size_t offset = 0;  // byte offset of the problem
  std::string reason;      // what is wrong, without where: "Missing a comma or '}' ..."
  // With where: "invalid JSON at byte offset 7: <reason>", or for nesting "JSON nesting deeper
  // than 64 levels at byte offset 7". Both empty when the parse succeeded.
  std::string message;

  bool ok() const { return problem == Problem::None; }
};

// Copies what it keeps: `text` need not outlive `doc`.
JsonParseResult parseJson(std::string_view text, rapidjson::Document& doc,
                          std::size_t maxDepth = kMaxJsonDepth);

// Parses in situ: `doc`'s strings point into `buffer`, which must outlive it (see
// parseInSituWithDepthLimit for the slack it may add).
JsonParseResult parseJsonInSitu(std::string& buffer, rapidjson::Document& doc,
                                std::size_t maxDepth = kMaxJsonDepth,
                                InSituReader reader = InSituReader::Scanner);

// The same, keeping only what `keep` keeps (kube/json_field_table.hpp): the same errors at the
// same offsets as the full parse, a document with only the kept values.
JsonParseResult parseJsonInSitu(std::string& buffer, rapidjson::Document& doc, const JsonKeep& keep,
                                JsonChooser chooser, std::size_t maxDepth = kMaxJsonDepth,
                                InSituReader reader = InSituReader::Scanner);

}  // namespace gpua::kube
