#include "kube/json_parse.hpp"

#include <rapidjson/error/en.h>

#include "kube/control_bytes.hpp"

namespace gpua::kube {

namespace {

std::string controlByteProblem(unsigned char c) {
  if (c == 0) return "NUL byte in body";
  static constexpr char kHex[] = "0123456789ABCDEF";
  const std::string code = {'U', '+', '0', '0', kHex[c >> 4], kHex[c & 0xF]};
  return "unescaped control character " + code + " (RFC 8259: escape it as \\u00" + code.substr(4) +
         " inside a string)";
}

// The reader's SSE2 scanner lets some raw control bytes through inside strings, and in-situ
// parsing stops at a NUL (which would hide trailing garbage): one scan refuses every one.
JsonParseResult refuseControlBytes(std::string_view text) {
  JsonParseResult r;
  const std::size_t at = findForbiddenControlByte(text);
  if (at == std::string_view::npos) return r;
  r.problem = JsonParseResult::Problem::ControlByte;
  r.offset = at;
  r.reason = controlByteProblem(static_cast<unsigned char>(text[at]));
  r.message = "invalid JSON at byte offset " + std::to_string(at) + ": " + r.reason;
  return r;
}

JsonParseResult judged(const DepthLimitedParse& parsed, std::size_t maxDepth) {
  JsonParseResult r;
  r.offset = parsed.result.Offset();
  if (parsed.tooDeep) {
    r.problem = JsonParseResult::Problem::TooDeep;
    r.reason = "nesting deeper than " + std::to_string(maxDepth) + " levels";
    r.message = "JSON " + r.reason + " at byte offset " + std::to_string(r.offset);
  } else if (parsed.result.IsError()) {
    r.problem = JsonParseResult::Problem::Invalid;
    r.reason = rapidjson::GetParseError_En(parsed.result.Code());
    r.message = "invalid JSON at byte offset " + std::to_string(r.offset) + ": " + r.reason;
  } else {
    r.offset = 0;
  }
  return r;
}

}  // namespace

JsonParseResult parseJson(std::string_view text, rapidjson::Document& doc, std::size_t maxDepth) {
  if (auto refused = refuseControlBytes(text); !refused.ok()) return refused;
  return judged(parseWithDepthLimit(text, doc, maxDepth), maxDepth);
}

JsonParseResult parseJsonInSitu(std::string& buffer, rapidjson::Document& doc, std::size_t maxDepth,
                                InSituReader reader) {
  // What the scanner reads passed the control-byte check already; only its refusals need it.
  if (reader == InSituReader::Scanner && scanInSitu(buffer, doc, maxDepth)) return {};
  if (auto refused = refuseControlBytes(buffer); !refused.ok()) return refused;
  return judged(parseInSituWithDepthLimit(buffer, doc, maxDepth, InSituReader::RapidJson),
                maxDepth);
}

JsonParseResult parseJsonInSitu(std::string& buffer, rapidjson::Document& doc, const JsonKeep& keep,
                                JsonChooser chooser, std::size_t maxDepth, InSituReader reader) {
  if (reader == InSituReader::Scanner && scanInSitu(buffer, doc, keep, chooser, maxDepth))
    return {};
  if (auto refused = refuseControlBytes(buffer); !refused.ok()) return refused;
  return judged(
      parseInSituWithDepthLimit(buffer, doc, keep, chooser, maxDepth, InSituReader::RapidJson),
      maxDepth);
}

}  // namespace gpua::kube
