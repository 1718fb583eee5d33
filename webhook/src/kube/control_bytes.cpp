#include "kube/control_bytes.hpp"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace gpua::kube {

namespace {

bool forbidden(unsigned char c) {
  return c < 0x20 && c != '\t' && c != '\n' && c != '\r';
}

#if defined(__SSE2__)
// 0xFF for each of the 16 bytes at `p` that is 0x00..0x1F.
__m128i controlBytes(const char* p) {
  const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
  return _mm_cmpeq_epi8(_mm_min_epu8(v, _mm_set1_epi8(0x1F)), v);
}

int controlMask(const char* p) {
  return _mm_movemask_epi8(controlBytes(p));
}

// The forbidden ones among them (TAB, LF and CR are allowed between tokens).
int forbiddenMask(const char* p) {
  const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
  const __m128i space = _mm_or_si128(
      _mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8('\t')), _mm_cmpeq_epi8(v, _mm_set1_epi8('\n'))),
      _mm_cmpeq_epi8(v, _mm_set1_epi8('\r')));
  return controlMask(p) & ~_mm_movemask_epi8(space);
}
#endif

}  // namespace

std::size_t findForbiddenControlByte(std::string_view text) {
  std::size_t i = 0;
#if defined(__SSE2__)
  // The apiserver sends compact JSON: no byte below 0x20 at all, so 64 bytes a step ask only
  // "any control byte?", and the blocks that have one (whitespace, mostly) are looked at closely.
  for (; i + 64 <= text.size(); i += 64) {
    const char* p = text.data() + i;
    const __m128i any = _mm_or_si128(_mm_or_si128(controlBytes(p), controlBytes(p + 16)),
                                     _mm_or_si128(controlBytes(p + 32), controlBytes(p + 48)));
    if (_mm_movemask_epi8(any) == 0) continue;
    for (std::size_t b = 0; b < 64; b += 16)
      if (const int mask = forbiddenMask(p + b); mask != 0)
        return i + b + static_cast<std::size_t>(__builtin_ctz(static_cast<unsigned>(mask)));
  }
  for (; i + 16 <= text.size(); i += 16)
    if (const int mask = forbiddenMask(text.data() + i); mask != 0)
      return i + static_cast<std::size_t>(__builtin_ctz(static_cast<unsigned>(mask)));
#endif
  for (; i < text.size(); ++i)
    if (forbidden(static_cast<unsigned char>(text[i]))) return i;
  return std::string_view::npos;
}

}  // namespace gpua::kube
