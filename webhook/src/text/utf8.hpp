// Strict UTF-8 decoding of one sequence, shared by everything that cleans text for the
// apiserver (warnings, messages) or for logs.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace gpua::text {

// Length of the valid UTF-8 sequence at text[i], or 0 when it is invalid (overlong forms,
// surrogates and code points above U+10FFFF included). Sets `cp` to the code point.
inline std::size_t utf8Sequence(std::string_view text, std::size_t i, uint32_t& cp) {
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

}  // namespace gpua::text
