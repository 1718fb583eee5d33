#include "admission/json_depth.hpp"

namespace gpua::admission {

bool exceedsJsonDepth(std::string_view text, std::size_t limit) {
  std::size_t depth = 0;
  bool inString = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (inString) {
      if (c == '\\')
        ++i;  // skip the escaped character, which may be a quote
      else if (c == '"')
        inString = false;
      continue;
    }
    switch (c) {
      case '"':
        inString = true;
        break;
      case '[':
      case '{':
        if (++depth > limit) return true;
        break;
      case ']':
      case '}':
        if (depth > 0) --depth;  // unbalanced input is the parser's error to report
        break;
      default:
        break;
    }
  }
  return false;
}

}  // namespace gpua::admission
