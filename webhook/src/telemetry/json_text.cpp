#include "telemetry/json_text.hpp"

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <ctime>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "text/utf8.hpp"

namespace gpua::telemetry {

namespace {

constexpr std::string_view kReplacement = "\xEF\xBF\xBD";  // U+FFFD

// Length of the valid UTF-8 sequence starting at text[i]; 0 when invalid.
std::size_t validSequence(std::string_view text, std::size_t i) {
  uint32_t cp = 0;
  return text::utf8Sequence(text, i, cp);
}

void appendEscapedAscii(std::string& out, char c) {
  switch (c) {
    case '"':
      out += "\\\"";
      return;
    case '\\':
      out += "\\\\";
      return;
    case '\n':
      out += "\\n";
      return;
    case '\r':
      out += "\\r";
      return;
    case '\t':
      out += "\\t";
      return;
    case '\b':
      out += "\\b";
      return;
    case '\f':
      out += "\\f";
      return;
    default:
      break;
  }
  if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {
    char buf[8];
    std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned>(static_cast<unsigned char>(c)));
    out += buf;
  } else {
    out.push_back(c);
  }
}

bool plainAscii(char c) {
  const auto u = static_cast<unsigned char>(c);
  return u >= 0x20 && u < 0x7f && c != '"' && c != '\\';
}

constexpr uint64_t kOnes = 0x0101010101010101ULL;
constexpr uint64_t kHighBits = 0x8080808080808080ULL;

// Non-zero when some byte of v is below n (n <= 0x80): the classic exact "has less" test.
constexpr uint64_t anyBelow(uint64_t v, uint8_t n) {
  return (v - kOnes * n) & ~v & kHighBits;
}

constexpr uint64_t anyEqual(uint64_t v, uint8_t b) {
  return anyBelow(v ^ (kOnes * b), 1);
}

// True when all 8 bytes of v are plainAscii: checked 8 at a time (SWAR), since log fields
// (names, uids, labels) are long runs of plain ASCII.
constexpr bool allPlain(uint64_t v) {
  return (anyBelow(v, 0x20) | (v & kHighBits) | anyEqual(v, 0x7f) | anyEqual(v, '"') |
          anyEqual(v, '\\')) == 0;
}

#if defined(__SSE2__)
// A bit per byte of the 16 at p that is not plainAscii.
int notPlainMask(const char* p) {
  const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
  // Signed: bytes from 0x80 up are negative, so "below a space" also catches non-ASCII.
  const __m128i hit = _mm_or_si128(
      _mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8('"')), _mm_cmpeq_epi8(v, _mm_set1_epi8('\\'))),
      _mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8(0x7f)), _mm_cmplt_epi8(v, _mm_set1_epi8(' '))));
  return _mm_movemask_epi8(hit);
}
#endif

// The end of the run of plainAscii characters starting at text[i]: 16 bytes a step where SSE2
// is there, then 8, then one by one.
std::size_t plainRunEnd(std::string_view text, std::size_t i) {
#if defined(__SSE2__)
  for (; i + 16 <= text.size(); i += 16)
    if (const int mask = notPlainMask(text.data() + i))
      return i + static_cast<std::size_t>(__builtin_ctz(static_cast<unsigned>(mask)));
#endif
  for (uint64_t v; i + 8 <= text.size(); i += 8) {
    std::memcpy(&v, text.data() + i, 8);
    if (!allPlain(v)) break;
  }
  while (i < text.size() && plainAscii(text[i])) ++i;
  return i;
}

}  // namespace

// A log line's values are mostly short (names, uids, a few words): whole blocks, the last one
// overlapping the one before, so no string ends byte by byte unless it is under 8 bytes.
bool isPlainJsonText(std::string_view text) {
  const char* p = text.data();
  const std::size_t n = text.size();
#if defined(__SSE2__)
  if (n >= 16) {
    for (std::size_t i = 0; i + 16 < n; i += 16)
      if (notPlainMask(p + i) != 0) return false;
    return notPlainMask(p + n - 16) == 0;
  }
#endif
  if (n >= 8) {
    uint64_t first = 0;
    uint64_t last = 0;
    std::memcpy(&first, p, 8);
    std::memcpy(&last, p + n - 8, 8);
    return allPlain(first) && allPlain(last);
  }
  for (const char c : text)
    if (!plainAscii(c)) return false;
  return true;
}

void appendJsonString(std::string& out, std::string_view text) {
  out.push_back('"');
  for (std::size_t i = 0; i < text.size();) {
    // Names, uids and labels are plain ASCII: copy the whole run in one append.
    const std::size_t run = plainRunEnd(text, i);
    if (run > i) {
      out.append(text.data() + i, run - i);
      i = run;
      continue;
    }
    const std::size_t len = validSequence(text, i);
    if (len == 0) {
      out += kReplacement;
      ++i;
    } else if (len == 1) {
      appendEscapedAscii(out, text[i++]);
    } else {
      out.append(text.substr(i, len));
      i += len;
    }
  }
  out.push_back('"');
}

void appendRfc3339Micros(std::string& out, std::chrono::system_clock::time_point t) {
  using namespace std::chrono;
  const auto us = duration_cast<microseconds>(t.time_since_epoch()).count();
  // Floor division so times before 1970 still get a positive fraction.
  std::time_t secs = static_cast<std::time_t>(us / 1'000'000);
  long long frac = us % 1'000'000;
  if (frac < 0) frac += 1'000'000, --secs;
  thread_local std::time_t cachedSecs = -1;
  thread_local char cachedPrefix[96];  // "YYYY-MM-DDTHH:MM:SS", room for any int tm may hold
  thread_local int cachedLen = 0;
  if (secs != cachedSecs || cachedLen <= 0) {
    std::tm tm{};
    gmtime_r(&secs, &tm);
    cachedLen = std::snprintf(cachedPrefix, sizeof cachedPrefix, "%04d-%02d-%02dT%02d:%02d:%02d",
                              tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min,
                              tm.tm_sec);
    cachedSecs = secs;
  }
  out.append(cachedPrefix, static_cast<std::size_t>(cachedLen));
  char digits[8] = {'.', '0', '0', '0', '0', '0', '0', 'Z'};
  for (int i = 6; i >= 1; --i, frac /= 10) digits[i] = static_cast<char>('0' + frac % 10);
  out.append(digits, sizeof digits);
}

std::string formatRfc3339Micros(std::chrono::system_clock::time_point t) {
  std::string out;
  appendRfc3339Micros(out, t);
  return out;
}

}  // namespace gpua::telemetry
