#include "kube/control_bytes.hpp"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace gpua::kube {

namespace {

bool forbidden(unsigned char c) {
  return c < 0x20 && c != '\t' && c != '\n' && c != '\r';
}

}  // namespace

std::size_t findForbiddenControlByte(std::string_view text) {
  std::size_t i = 0;
#if defined(__SSE2__)
  const __m128i highestControl = _mm_set1_epi8(0x1F);
  const __m128i tab = _mm_set1_epi8('\t'), lf = _mm_set1_epi8('\n'), cr = _mm_set1_epi8('\r');
  for (; i + 16 <= text.size(); i += 16) {
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(text.data() + i));
    const __m128i control = _mm_cmpeq_epi8(_mm_min_epu8(v, highestControl), v);  // v <= 0x1F
    const __m128i space = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, tab), _mm_cmpeq_epi8(v, lf)),
                                       _mm_cmpeq_epi8(v, cr));
    const int mask = _mm_movemask_epi8(_mm_andnot_si128(space, control));
    if (mask != 0) return i + static_cast<std::size_t>(__builtin_ctz(static_cast<unsigned>(mask)));
  }
#endif
  for (; i < text.size(); ++i)
    if (forbidden(static_cast<unsigned char>(text[i]))) return i;
  return std::string_view::npos;
}

}  // namespace gpua::kube
