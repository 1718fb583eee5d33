#include "admission/text_sanitizer.hpp"

#include <cstdint>

namespace gpua::admission {

namespace {

constexpr std::string_view kReplacement = "\xEF\xBF\xBD";  // U+FFFD
constexpr std::string_view kEllipsis = "...";

// Length of the valid UTF-8 sequence at text[i], or 0 when it is invalid (overlong forms,
// surrogates and code points above U+10FFFF included). Sets `cp` to the code point.
std::size_t utf8Sequence(std::string_view text, std::size_t i, uint32_t& cp) {
  const auto b = [&](std::size_t k) { return static_cast<unsigned char>(text[i + k]); };
  const unsigned char c = b(0);
  std::size_t len = 0;
  uint32_t min = 0;
  if (c < 0x80) {
    cp = c;
    return 1;
  } else if ((c & 0xE0) == 0xC0) {
    len = 2, cp = c & 0x1F, min = 0x80;
  } else if ((c & 0xF0) == 0xE0) {
    len = 3, cp = c & 0x0F, min = 0x800;
  } else if ((c & 0xF8) == 0xF0) {
    len = 4, cp = c & 0x07, min = 0x10000;
  } else {
    return 0;
  }
  if (i + len > text.size()) return 0;
  for (std::size_t k = 1; k < len; ++k) {
    if ((b(k) & 0xC0) != 0x80) return 0;
    cp = (cp << 6) | (b(k) & 0x3F);
  }
  if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
  return len;
}

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

std::string sanitizeLine(std::string_view text, std::size_t maxBytes) {
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
