// ASCII helpers: protocol tokens (header values, media types), which are case-insensitive, and
// the printable-ASCII test of text that needs no cleaning.
#pragma once

#include <string_view>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace gpua::text {

// 'A'..'Z' lowered, every other byte as it is: protocol tokens are ASCII, and std::tolower is
// a call into the C library per byte that depends on the process's locale.
constexpr char lowerAscii(char c) {
  return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c;
}

// Case-insensitive ASCII equality, without building a lowered copy.
constexpr bool equalsIgnoreCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (lowerAscii(a[i]) != lowerAscii(b[i])) return false;
  return true;
}

// True when every byte is printable ASCII (0x20 to 0x7E): text that reads the same in any log
// and on any terminal, as it is. 16 bytes a step where SSE2 is there (messages and warnings are
// a hundred bytes or more, checked on every request).
inline bool isPrintableAscii(std::string_view s) {
  const char* p = s.data();
  const char* const end = p + s.size();
#if defined(__SSE2__)
  const __m128i space = _mm_set1_epi8(' ');
  const __m128i del = _mm_set1_epi8(0x7F);
  for (; end - p >= 16; p += 16) {
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
    // Signed: the bytes from 0x80 up are negative, so "below a space" catches them too.
    if (_mm_movemask_epi8(_mm_or_si128(_mm_cmplt_epi8(v, space), _mm_cmpeq_epi8(v, del))) != 0)
      return false;
  }
#endif
  for (; p < end; ++p) {
    const auto c = static_cast<unsigned char>(*p);
    if (c < 0x20 || c >= 0x7F) return false;
  }
  return true;
}

}  // namespace gpua::text
