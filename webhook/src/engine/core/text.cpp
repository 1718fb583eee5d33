#include "engine/core/text.hpp"

#include <cmath>
#include <cstdint>
#include <cstdio>

#include "text/ascii.hpp"
#include "text/utf8.hpp"

namespace gpua::engine::text {

namespace {

// The largest length <= max that does not split a UTF-8 sequence.
std::size_t utf8Cut(std::string_view s, std::size_t max) {
  if (s.size() <= max) return s.size();
  std::size_t cut = max;
  while (cut > 0 && (static_cast<unsigned char>(s[cut]) & 0xC0) == 0x80) --cut;
  return cut;
}

}  // namespace

bool isOneLine(std::string_view s, std::size_t maxBytes) {
  return s.size() <= maxBytes && ::gpua::text::isPrintableAscii(s);
}

std::string oneLine(std::string_view s, std::size_t maxBytes) {
  if (isOneLine(s, maxBytes)) return std::string(s);
  const std::size_t cut = utf8Cut(s, maxBytes);
  std::string out;
  out.reserve(cut + 3);
  for (std::size_t i = 0; i < cut;) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c < 0x80) {
      out += (c < 0x20 || c == 0x7F) ? ' ' : static_cast<char>(c);
      ++i;
      continue;
    }
    // Keep well-formed UTF-8 sequences; a stray byte becomes '?' so the text stays valid UTF-8.
    uint32_t cp = 0;
    const std::size_t len = gpua::text::utf8Sequence(s.substr(0, cut), i, cp);
    if (len == 0) {
      out += '?';
      ++i;
    } else {
      out.append(s.substr(i, len));
      i += len;
    }
  }
  if (cut < s.size()) out += "...";
  return out;
}

std::string quoted(std::string_view s) {
  std::string out;
  appendQuoted(out, s);
  return out;
}

void appendQuoted(std::string& out, std::string_view s) {
  out += '"';
  appendOneLine(out, s, 80);
  out += '"';
}

std::string number(double v) {
  std::string out;
  appendNumber(out, v);
  return out;
}

void appendNumber(std::string& out, double v) {
  if (!std::isfinite(v)) {
    out += '0';
    return;
  }
  char buf[64];
  const int n = std::snprintf(buf, sizeof buf, "%.2f", v);
  std::string_view text(buf, n > 0 ? static_cast<std::size_t>(n) : 0);
  while (!text.empty() && text.back() == '0') text.remove_suffix(1);
  if (!text.empty() && text.back() == '.') text.remove_suffix(1);
  if (text == "-0") text = "0";
  out.append(text);
}

std::string join(std::span<const std::string> items, std::string_view separator) {
  std::string out;
  appendJoined(out, items, separator);
  return out;
}

void appendJoined(std::string& out, std::span<const std::string> items,
                  std::string_view separator) {
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (i > 0) out += separator;
    out += items[i];
  }
}

void appendOneLine(std::string& out, std::string_view s, std::size_t maxBytes) {
  if (isOneLine(s, maxBytes)) {
    out.append(s);
    return;
  }
  out += oneLine(s, maxBytes);
}

}  // namespace gpua::engine::text
