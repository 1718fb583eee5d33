#include "admission/warning_split.hpp"

namespace gpua::admission {

namespace {

bool continuationByte(char c) {
  return (static_cast<unsigned char>(c) & 0xC0) == 0x80;
}

// How many bytes of `s` (longer than budget) the next part takes, at most `budget`: through the
// last clause (": ", "; ", ", ") in the second half of the budget, else through its last space,
// else through its last JSON separator (',' ':' '{' '['), else up to a character boundary.
std::size_t breakAt(std::string_view s, std::size_t budget) {
  std::size_t space = 0, separator = 0;
  for (std::size_t p = budget - 1; p > budget / 2; --p) {
    const char c = s[p], before = s[p - 1];
    if (c == ' ' && (before == ':' || before == ';' || before == ',')) return p + 1;
    if (c == ' ' && space == 0) space = p + 1;
    if ((c == ',' || c == ':' || c == '{' || c == '[') && separator == 0) separator = p + 1;
  }
  if (space != 0) return space;
  if (separator != 0) return separator;
  std::size_t p = budget;
  while (p > 1 && continuationByte(s[p])) --p;
  return p;
}

}  // namespace

std::vector<std::string> splitWarning(std::string_view line, std::size_t maxBytes) {
  std::vector<std::string> parts;
  std::string_view rest = line;
  while (!rest.empty()) {
    const std::string_view lead = parts.empty() ? std::string_view() : kWarningContinuedMark;
    if (lead.size() + rest.size() <= maxBytes) {
      parts.push_back(std::string(lead).append(rest));
      break;
    }
    const std::size_t n = breakAt(rest, maxBytes - lead.size() - kWarningContinuesMark.size());
    parts.push_back(std::string(lead).append(rest.substr(0, n)).append(kWarningContinuesMark));
    rest.remove_prefix(n);
  }
  return parts;
}

std::vector<std::string> joinWarningLines(const std::vector<std::string>& lines) {
  std::vector<std::string> out;
  for (const auto& line : lines) {
    const bool continues = !out.empty() && out.back().ends_with(kWarningContinuesMark) &&
                           line.starts_with(kWarningContinuedMark);
    if (!continues) {
      out.push_back(line);
      continue;
    }
    out.back().resize(out.back().size() - kWarningContinuesMark.size());
    out.back().append(line, kWarningContinuedMark.size());
  }
  return out;
}

}  // namespace gpua::admission
