// The bytes a JSON string cannot hold as they are (RFC 8259 section 7): '"', '\\' and the
// control bytes below 0x20. The first one decides where a string literal in a text ends (the
// scanner, kube/json_scanner.hpp) and whether a string can be written out as it is (the
// engine's writers, engine/core/json_util.cpp).
#pragma once

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace gpua::kube {

// The first byte in [s, end) that is '"', '\\' or below 0x20, 16 bytes a step while a whole
// block is inside the range; `end` when there is none.
[[gnu::always_inline]] inline const char* findJsonSpecial(const char* s, const char* end) {
#if defined(__SSE2__)
  const __m128i quote = _mm_set1_epi8('"');
  const __m128i backslash = _mm_set1_epi8('\\');
  const __m128i control = _mm_set1_epi8(0x1F);
  while (end - s >= 16) {
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s));
    // Unsigned: max(v, 0x1F) == 0x1F exactly for the bytes up to 0x1F.
    const __m128i low = _mm_cmpeq_epi8(_mm_max_epu8(v, control), control);
    const __m128i hit =
        _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, quote), _mm_cmpeq_epi8(v, backslash)), low);
    if (const int mask = _mm_movemask_epi8(hit))
      return s + __builtin_ctz(static_cast<unsigned>(mask));
    s += 16;
  }
#endif
  while (s < end && *s != '"' && *s != '\\' && static_cast<unsigned char>(*s) >= 0x20) ++s;
  return s;
}

}  // namespace gpua::kube
