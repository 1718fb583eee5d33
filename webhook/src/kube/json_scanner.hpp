// A JSON reader for the request path: reads NUL-terminated text in place and sends the same SAX
// events RapidJSON's reader sends with its default flags (the same values, numbers typed the same
// way, duplicate keys kept in order), only faster on what the apiserver sends: strings are
// searched 16 bytes a step from wherever they start (RapidJSON goes byte by byte up to an
// aligned block first, and a pod's strings are mostly shorter than a block), and values a handler
// drops are skipped without building or decoding them.
//
// It does not explain errors: on anything it does not accept (invalid JSON, a raw control byte,
// a number it does not type itself, a handler that refuses) it stops and returns false, leaving
// the text as it found it, and the caller asks RapidJSON's reader for the verdict and its words
// (kube/depth_limited_parse.cpp). So the two readers cannot disagree on an error, and on valid
// JSON they must agree event for event (tests/kube/json_scanner_test.cpp, fuzz/fuzz_json_scanner).
//
// In place: a string without escapes stays where it is, its closing quote overwritten by a NUL
// (as RapidJSON's in-situ parse does); a string with escapes is decoded into memory the caller
// gives (`Decoded`), so the text keeps its escapes and a failed read can be undone exactly by
// putting the quotes back (the text had no NUL before the point the read reached).
#pragma once

#include <rapidjson/reader.h>
#include <rapidjson/stream.h>

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "kube/json_special.hpp"

namespace gpua::kube {

// A handler may offer `bool dropsNextValue()`: asked before each member value and array element,
// true means the value is read for validity only and never reaches the handler.
template <typename H>
concept DropsValues = requires(H& h) {
  { h.dropsNextValue() } -> std::same_as<bool>;
};

// `Decoded` is callable as `char* (std::size_t bytes)`: room for a decoded string that lives as
// long as the values the handler builds (the document's allocator).
template <typename Handler, typename Decoded>
class JsonScanner {
 public:
  using SizeType = rapidjson::SizeType;

  // [begin, end) is the text; *end must be '\0'. Containers nest at most `maxDepth` levels
  // (deeper text is refused, and RapidJSON's reader then says where).
  JsonScanner(char* begin, char* end, Handler& handler, Decoded decoded, std::size_t maxDepth)
      : begin_(begin), p_(begin), end_(end), h_(handler), decoded_(decoded), maxDepth_(maxDepth) {}

  // True when the whole text was one valid JSON value and every event was accepted. On false
  // the text is restored and nothing the handler received may be used.
  bool read() {
    skipSpace();
    const bool ok = value() && (skipSpace(), p_ == end_);
    if (!ok) restore();
    return ok;
  }

 private:
  // A value, after any whitespace: the loops below leave the space before a value to it, and the
  // space after a key or value to the miss of their one compare for ':' or ',' (compact JSON
  // has none, so each costs nothing more there).
  bool value() {
    switch (*p_) {
      case ' ':
      case '\t':
      case '\n':
      case '\r':
        skipSpace();
        return value();
      case '{':
        return object();
      case '[':
        return array();
      case '"':
        return string(false);
      case 't':
        return literal("true", 4) && h_.Bool(true);
      case 'f':
        return literal("false", 5) && h_.Bool(false);
      case 'n':
        return literal("null", 4) && h_.Null();
      default:
        return number();
    }
  }

  // Flattened: the handler's calls (RapidJSON's Document keeps String and Key out of line, a call
  // per token) are inlined here, where the tokens are read (-4,900 instructions per review).
  [[gnu::flatten]] bool object() {
    ++p_;
    if (++depth_ > maxDepth_ || !h_.StartObject()) return false;
    skipSpace();
    SizeType members = 0;
    if (*p_ != '}') {
      for (;;) {
        if (*p_ != '"') {
          skipSpace();
          if (*p_ != '"') return false;
        }
        if (!string(true)) return false;
        if (*p_ != ':') {
          skipSpace();
          if (*p_ != ':') return false;
        }
        ++p_;
        if (!memberValue()) return false;
        ++members;
        if (*p_ != ',') {
          skipSpace();
          if (*p_ != ',') break;
        }
        ++p_;
      }
      if (*p_ != '}') return false;
    }
    ++p_;
    --depth_;
    return h_.EndObject(members);
  }

  [[gnu::flatten]] bool array() {
    ++p_;
    if (++depth_ > maxDepth_ || !h_.StartArray()) return false;
    skipSpace();
    SizeType elements = 0;
    if (*p_ != ']') {
      for (;;) {
        if (!memberValue()) return false;
        ++elements;
        if (*p_ != ',') {
          skipSpace();
          if (*p_ != ',') break;
        }
        ++p_;
      }
      if (*p_ != ']') return false;
    }
    ++p_;
    --depth_;
    return h_.EndArray(elements);
  }

  // A member's value or an array's element: the handler's (dropped values are still counted: the
  // handler counts what it keeps, as it does for values RapidJSON hands it).
  [[gnu::always_inline]] bool memberValue() {
    if constexpr (DropsValues<Handler>) {
      if (h_.dropsNextValue()) return skipValue();
    }
    // Most values are strings: read here rather than through another call.
    return *p_ == '"' ? string(false) : value();
  }

  bool literal(const char* word, std::size_t n) {
    if (static_cast<std::size_t>(end_ - p_) < n || std::memcmp(p_, word, n) != 0) return false;
    p_ += n;
    return true;
  }

  static bool isDigit(char c) { return c >= '0' && c <= '9'; }

  // Integers of up to 18 digits, typed as RapidJSON types them (Uint, Int, Uint64, Int64 by
  // range); anything else (fractions, exponents, longer numbers) goes to RapidJSON's own number
  // reader, so doubles are converted exactly as before. Invalid numbers are refused.
  bool number() {
    const char* start = p_;
    const bool minus = *p_ == '-';
    const char* d = p_ + (minus ? 1 : 0);
    if (!isDigit(*d)) return false;
    const char* digits = d;
    std::uint64_t magnitude = 0;
    if (*d == '0') {
      ++d;
    } else {
      while (isDigit(*d) && d - digits < 18) magnitude = magnitude * 10 + (*d++ - '0');
    }
    if (isDigit(*d) || *d == '.' || *d == 'e' || *d == 'E') return numberByRapidJson(start, h_);
    p_ = const_cast<char*>(d);
    if (minus) {
      if (magnitude <= 0x80000000ull)
        return h_.Int(static_cast<int>(-static_cast<std::int64_t>(magnitude)));
      return h_.Int64(-static_cast<std::int64_t>(magnitude));
    }
    if (magnitude <= 0xFFFFFFFFull) return h_.Uint(static_cast<unsigned>(magnitude));
    return h_.Uint64(magnitude);
  }

  // One number read by RapidJSON's reader, its event given to `target` (the text is not changed).
  template <typename Target>
  bool numberByRapidJson(const char* start, Target& target) {
    rapidjson::StringStream in(start);
    rapidjson::CrtAllocator stackAllocator;
    rapidjson::Reader reader(&stackAllocator, 0);
    NumberForward<Target> forward{target};
    if (reader.Parse<rapidjson::kParseStopWhenDoneFlag>(in, forward).IsError() || !forward.number)
      return false;
    p_ += in.Tell();
    return true;
  }

  // Only numbers may come through; the scanner refuses the rest before it gets here.
  template <typename Target>
  struct NumberForward : rapidjson::BaseReaderHandler<rapidjson::UTF8<>, NumberForward<Target>> {
    explicit NumberForward(Target& t) : t(t) {}
    bool Default() { return false; }
    bool Int(int i) { return number = t.Int(i); }
    bool Uint(unsigned u) { return number = t.Uint(u); }
    bool Int64(int64_t i) { return number = t.Int64(i); }
    bool Uint64(uint64_t u) { return number = t.Uint64(u); }
    bool Double(double d) { return number = t.Double(d); }
    Target& t;
    bool number = false;
  };

  // Takes any number: what a dropped number is checked against.
  struct AnyNumber {
    bool Int(int) { return true; }
    bool Uint(unsigned) { return true; }
    bool Int64(int64_t) { return true; }
    bool Uint64(uint64_t) { return true; }
    bool Double(double) { return true; }
  };

  // p_ at the opening quote. Finds the closing quote 16 bytes a step while a whole block is
  // inside the text; a backslash sends the string to the decoder, a control byte refuses it.
  [[gnu::always_inline]] bool string(bool key) {
    char* const start = ++p_;
    char* q = findQuoteOrSpecial(start);
    if (*q == '\\') return decodedString(start, key);
    if (*q != '"') return false;
    *q = '\0';
    p_ = q + 1;
    const auto n = static_cast<SizeType>(q - start);
    return key ? h_.Key(start, n, false) : h_.String(start, n, false);
  }

  // The first '"', '\\' or byte below 0x20 at or after s (the terminating NUL at the latest).
  [[gnu::always_inline]] char* findQuoteOrSpecial(char* s) const {
    return const_cast<char*>(findJsonSpecial(s, end_));
  }

  // A string with escapes: decoded as RapidJSON decodes them into the caller's memory (decoded
  // strings are never longer than their text), the text left as it is.
  [[gnu::noinline]] bool decodedString(char* start, bool key) {
    char* close = start;
    for (;;) {
      close = findQuoteOrSpecial(close);
      if (*close == '"') break;
      if (*close != '\\' || close[1] == '\0') return false;
      close += 2;
    }
    char* out = decoded_(static_cast<std::size_t>(close - start) + 1);
    char* w = out;
    for (const char* s = start; s < close;) {
      if (*s != '\\') {
        *w++ = *s++;
        continue;
      }
      if (!unescape(s, w)) return false;
    }
    *w = '\0';
    p_ = close + 1;
    const auto n = static_cast<SizeType>(w - out);
    return key ? h_.Key(out, n, false) : h_.String(out, n, false);
  }

  // One escape at s (a backslash), written at w; both advanced.
  static bool unescape(const char*& s, char*& w) {
    const char c = s[1];
    s += 2;
    switch (c) {
      case '"':
        *w++ = '"';
        return true;
      case '\\':
        *w++ = '\\';
        return true;
      case '/':
        *w++ = '/';
        return true;
      case 'b':
        *w++ = '\b';
        return true;
      case 'f':
        *w++ = '\f';
        return true;
      case 'n':
        *w++ = '\n';
        return true;
      case 'r':
        *w++ = '\r';
        return true;
      case 't':
        *w++ = '\t';
        return true;
      case 'u':
        return unicode(s, w);
      default:
        return false;
    }
  }

  static int hex(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  }

  static bool hex4(const char*& s, unsigned& out) {
    out = 0;
    for (int i = 0; i < 4; ++i) {
      const int h = hex(s[i]);
      if (h < 0) return false;
      out = out * 16 + static_cast<unsigned>(h);
    }
    s += 4;
    return true;
  }

  // \uXXXX after the "\u": a high surrogate must be followed by an escaped low one; a lone low
  // surrogate is written as its code point, as RapidJSON 1.1 does.
  static bool unicode(const char*& s, char*& w) {
    unsigned cp = 0;
    if (!hex4(s, cp)) return false;
    if (cp >= 0xD800 && cp <= 0xDBFF) {
      unsigned low = 0;
      if (s[0] != '\\' || s[1] != 'u') return false;
      s += 2;
      if (!hex4(s, low) || low < 0xDC00 || low > 0xDFFF) return false;
      cp = (((cp - 0xD800) << 10) | (low - 0xDC00)) + 0x10000;
    }
    auto put = [&w](unsigned b) { *w++ = static_cast<char>(b); };
    if (cp <= 0x7F) {
      put(cp);
    } else if (cp <= 0x7FF) {
      put(0xC0 | (cp >> 6));
      put(0x80 | (cp & 0x3F));
    } else if (cp <= 0xFFFF) {
      put(0xE0 | (cp >> 12));
      put(0x80 | ((cp >> 6) & 0x3F));
      put(0x80 | (cp & 0x3F));
    } else {
      put(0xF0 | (cp >> 18));
      put(0x80 | ((cp >> 12) & 0x3F));
      put(0x80 | ((cp >> 6) & 0x3F));
      put(0x80 | (cp & 0x3F));
    }
    return true;
  }

  // A dropped value: checked as strictly as a kept one, built nowhere.
  bool skipValue() {
    switch (*p_) {
      case ' ':
      case '\t':
      case '\n':
      case '\r':
        skipSpace();
        return skipValue();
      case '{':
      case '[':
        return skipContainer();
      case '"':
        return skipString();
      case 't':
        return literal("true", 4);
      case 'f':
        return literal("false", 5);
      case 'n':
        return literal("null", 4);
      default:
        return skipNumber();
    }
  }

  bool skipContainer() {
    const bool isObject = *p_ == '{';
    const char close = isObject ? '}' : ']';
    if (++depth_ > maxDepth_) return false;
    ++p_;
    skipSpace();
    if (*p_ != close) {
      for (;;) {
        if (isObject) {
          if (*p_ != '"' || !skipString()) return false;
          skipSpace();
          if (*p_ != ':') return false;
          ++p_;
          skipSpace();
        }
        if (!skipValue()) return false;
        skipSpace();
        if (*p_ != ',') break;
        ++p_;
        skipSpace();
      }
      if (*p_ != close) return false;
    }
    ++p_;
    --depth_;
    return true;
  }

  // Escapes are decoded into scratch room (one escape is at most 4 bytes) for their validity.
  bool skipString() {
    const char* s = p_ + 1;
    for (;;) {
      s = findQuoteOrSpecial(const_cast<char*>(s));
      if (*s == '"') break;
      if (*s != '\\') return false;
      char scratch[4];
      char* w = scratch;
      if (!unescape(s, w)) return false;
    }
    p_ = const_cast<char*>(s) + 1;
    return true;
  }

  // Integers of up to 18 digits here, the rest by RapidJSON's reader (which refuses, for
  // example, numbers too big for a double).
  bool skipNumber() {
    const char* d = p_;
    if (*d == '-') ++d;
    if (!isDigit(*d)) return false;
    const char* digits = d;
    if (*d == '0') {
      ++d;
    } else {
      while (isDigit(*d) && d - digits < 18) ++d;
    }
    if (isDigit(*d) || *d == '.' || *d == 'e' || *d == 'E') {
      AnyNumber any;
      return numberByRapidJson(p_, any);
    }
    p_ = const_cast<char*>(d);
    return true;
  }

  // The apiserver sends compact JSON: the first test is almost always the last.
  [[gnu::always_inline]] void skipSpace() {
    if (static_cast<unsigned char>(*p_) > ' ') return;
    while (*p_ == ' ' || *p_ == '\n' || *p_ == '\r' || *p_ == '\t') ++p_;
  }

  // Puts back the closing quotes this read overwrote: every NUL before the point it reached.
  void restore() {
    for (char* s = begin_; s < p_ && s < end_; ++s)
      if (*s == '\0') *s = '"';
  }

  char* begin_;
  char* p_;
  char* end_;
  Handler& h_;
  Decoded decoded_;
  std::size_t maxDepth_;
  std::size_t depth_ = 0;
};

}  // namespace gpua::kube
