#include "kube/base64.hpp"

#include <array>
#include <bit>
#include <cstdint>
#include <cstring>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace gpua::kube {

namespace {

constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

constexpr std::array<int8_t, 256> makeDecodeTable() {
  std::array<int8_t, 256> table{};
  for (auto& v : table) v = -1;
  for (int i = 0; i < 64; ++i)
    table[static_cast<unsigned char>(kAlphabet[i])] = static_cast<int8_t>(i);
  return table;
}

constexpr auto kDecode = makeDecodeTable();

// Every pair of output characters for 12 input bits: two table reads per 3 bytes instead of four.
constexpr std::array<std::array<char, 2>, 4096> makePairTable() {
  std::array<std::array<char, 2>, 4096> table{};
  for (std::size_t i = 0; i < table.size(); ++i) table[i] = {kAlphabet[i >> 6], kAlphabet[i & 63]};
  return table;
}

constexpr auto kPairs = makePairTable();

// The 8 bytes at `in` as one big-endian number: its top 48 bits are the next 6 input bytes.
uint64_t loadBigEndian64(const unsigned char* in) {
  uint64_t v;
  std::memcpy(&v, in, sizeof v);
  if constexpr (std::endian::native == std::endian::little) v = __builtin_bswap64(v);
  return v;
}

char* putPair(char* o, uint32_t twelveBits) {
  std::memcpy(o, kPairs[twelveBits].data(), 2);
  return o + 2;
}

#if defined(__x86_64__)
// Twelve bytes a step into sixteen characters with SSSE3 (W. Mula and D. Lemire, "Faster Base64
// Encoding and Decoding Using AVX2 Instructions", 2018: the shuffle, the multiply-shift split
// into 6-bit indices and the pshufb alphabet offsets), while a 16-byte load stays inside the
// input; returns how many input bytes it encoded. Compiled for SSSE3 and called only where the
// CPU has it (every x86-64 CPU since 2006; the build's baseline is SSE2).
[[gnu::target("ssse3")]] std::size_t encodeBlocksSsse3(const unsigned char* in, std::size_t n,
                                                       char* o) {
  const __m128i shuffle = _mm_setr_epi8(1, 0, 2, 1, 4, 3, 5, 4, 7, 6, 8, 7, 10, 9, 11, 10);
  const __m128i offsets =
      _mm_setr_epi8('a' - 26, '0' - 52, '0' - 52, '0' - 52, '0' - 52, '0' - 52, '0' - 52, '0' - 52,
                    '0' - 52, '0' - 52, '0' - 52, '+' - 62, '/' - 63, 'A', 0, 0);
  std::size_t i = 0;
  for (; i + 16 <= n; i += 12, o += 16) {
    const __m128i v =
        _mm_shuffle_epi8(_mm_loadu_si128(reinterpret_cast<const __m128i*>(in + i)), shuffle);
    // Each 32-bit lane holds one 3-byte group as bytes b1 b0 b2 b1: its four 6-bit indices
    // are moved to the low bits of the lane's four bytes.
    const __m128i hi =
        _mm_mulhi_epu16(_mm_and_si128(v, _mm_set1_epi32(0x0FC0FC00)), _mm_set1_epi32(0x04000040));
    const __m128i lo =
        _mm_mullo_epi16(_mm_and_si128(v, _mm_set1_epi32(0x003F03F0)), _mm_set1_epi32(0x01000010));
    const __m128i index = _mm_or_si128(hi, lo);
    // The alphabet is four ranges (A-Z, a-z, 0-9, then '+' and '/'): each index selects the
    // offset of its range, added to it.
    __m128i range = _mm_subs_epu8(index, _mm_set1_epi8(51));
    range = _mm_or_si128(
        range, _mm_and_si128(_mm_cmpgt_epi8(_mm_set1_epi8(26), index), _mm_set1_epi8(13)));
    const __m128i chars = _mm_add_epi8(_mm_shuffle_epi8(offsets, range), index);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(o), chars);
  }
  return i;
}

bool hasSsse3() {
  static const bool has = __builtin_cpu_supports("ssse3");
  return has;
}
#endif

}  // namespace

void base64Append(std::string& out, std::string_view bytes) {
  const auto* in = reinterpret_cast<const unsigned char*>(bytes.data());
  const std::size_t n = bytes.size();
  const std::size_t start = out.size();
  // Size once, then write through a raw pointer: no per-character capacity checks.
  out.resize(start + (n + 2) / 3 * 4);
  char* o = out.data() + start;
  std::size_t i = 0;
#if defined(__x86_64__)
  if (n >= 16 && hasSsse3()) {
    i = encodeBlocksSsse3(in, n, o);
    o += i / 3 * 4;
  }
#endif
  // Six bytes a step while an 8-byte load stays inside the input (the patch is ~1 KB: most of it).
  for (; i + 8 <= n; i += 6) {
    const uint64_t v = loadBigEndian64(in + i);
    o = putPair(o, static_cast<uint32_t>(v >> 52) & 0xFFF);
    o = putPair(o, static_cast<uint32_t>(v >> 40) & 0xFFF);
    o = putPair(o, static_cast<uint32_t>(v >> 28) & 0xFFF);
    o = putPair(o, static_cast<uint32_t>(v >> 16) & 0xFFF);
  }
  for (; i + 3 <= n; i += 3) {
    const uint32_t v = (uint32_t{in[i]} << 16) | (uint32_t{in[i + 1]} << 8) | in[i + 2];
    o = putPair(o, v >> 12);
    o = putPair(o, v & 0xFFF);
  }
  if (const std::size_t rest = n - i; rest > 0) {
    uint32_t v = uint32_t{in[i]} << 16;
    if (rest == 2) v |= uint32_t{in[i + 1]} << 8;
    *o++ = kAlphabet[(v >> 18) & 63];
    *o++ = kAlphabet[(v >> 12) & 63];
    *o++ = rest == 2 ? kAlphabet[(v >> 6) & 63] : '=';
    *o++ = '=';
  }
}

std::string base64Encode(std::string_view bytes) {
  std::string out;
  base64Append(out, bytes);
  return out;
}

std::optional<std::string> base64Decode(std::string_view text) {
  if (text.size() % 4 != 0) return std::nullopt;
  std::string out;
  out.reserve(text.size() / 4 * 3);
  for (std::size_t i = 0; i < text.size(); i += 4) {
    const bool last = i + 4 == text.size();
    int pad = 0;
    uint32_t v = 0;
    for (std::size_t j = 0; j < 4; ++j) {
      const char c = text[i + j];
      if (c == '=' && last && j >= 2) {
        ++pad;
        v <<= 6;
        continue;
      }
      const int8_t d = kDecode[static_cast<unsigned char>(c)];
      if (d < 0 || pad > 0) return std::nullopt;  // data after padding is malformed
      v = (v << 6) | static_cast<uint32_t>(d);
    }
    out.push_back(static_cast<char>((v >> 16) & 0xff));
    if (pad < 2) out.push_back(static_cast<char>((v >> 8) & 0xff));
    if (pad < 1) out.push_back(static_cast<char>(v & 0xff));
  }
  return out;
}

}  // namespace gpua::kube
