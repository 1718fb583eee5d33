#include "admission/text_sanitizer.hpp"

#include "text/ascii.hpp"

#include <cstdint>

#include "text/utf8.hpp"

namespace gpua::admission {

namespace {

constexpr std::string_view kReplacement = "\xEF\xBF\xBD";  // U+FFFD
constexpr std::string_view kEllipsis = "...";

using text::utf8Sequence;

bool isControl(uint32_t cp) {
  return cp < 0x20 || (cp >= 0x7F && cp <= 0x9F) || cp == 0x2028 || cp == 0x2029;
}

// Cuts `s` to at most maxBytes at a character boundary, marking the cut with "...".
void truncate(std::string& s, std::size_t maxBytes) {
  if (s.size() <= maxBytes) return;
  if (maxBytes < kEllipsis.size()) {
    s.clear();
    return;
  }
  std::size_t cut = maxBytes - kEllipsis.size();
  while (cut > 0 && (static_cast<unsigned char>(s[cut]) & 0xC0) == 0x80) --cut;
  s.resize(cut);
  while (!s.empty() && s.back() == ' ') s.pop_back();
  s += kEllipsis;
}

}  // namespace

bool isCleanLine(std::string_view text, std::size_t maxBytes) {
  if (text.size() > maxBytes) return false;
  if (!text.empty() && (text.front() == ' ' || text.back() == ' ')) return false;
  return gpua::text::isPrintableAscii(text) && text.find("  ") == std::string_view::npos;
}

std::string sanitizeLine(std::string_view text, std::size_t maxBytes) {
  if (isCleanLine(text, maxBytes)) return std::string(text);
  std::string out;
  out.reserve(text.size() < maxBytes ? text.size() : maxBytes + 4);
  bool pendingSpace = false;
  for (std::size_t i = 0; i < text.size();) {
    uint32_t cp = 0;
    const std::size_t len = utf8Sequence(text, i, cp);
    std::string_view piece = len == 0 ? kReplacement : text.substr(i, len);
    i += len == 0 ? 1 : len;
    if (len != 0 && (isControl(cp) || cp == ' ')) {
      pendingSpace = !out.empty();
      continue;
    }
    if (pendingSpace) out.push_back(' ');
    pendingSpace = false;
    out.append(piece);
    if (out.size() > maxBytes + kEllipsis.size()) break;  // the rest would be cut anyway
  }
  truncate(out, maxBytes);
  return out;
}

}  // namespace gpua::admission
