#include "admission/warnings.hpp"

#include <algorithm>

#include "admission/text_sanitizer.hpp"

namespace gpua::admission {

namespace {

std::size_t totalBytes(const std::vector<std::string>& v) {
  std::size_t n = 0;
  for (const auto& s : v) n += s.size();
  return n;
}

}  // namespace

std::vector<std::string> sanitizeWarnings(const std::vector<std::string>& warnings) {
  std::vector<std::string> out;
  std::size_t total = 0;
  std::size_t omitted = 0;
  for (const auto& raw : warnings) {
    std::string w = sanitizeLine(raw, kMaxWarningBytes);
    if (w.empty() || std::find(out.begin(), out.end(), w) != out.end()) continue;
    if (omitted > 0 || total + w.size() > kMaxWarningTotalBytes) {
      ++omitted;
      continue;
    }
    total += w.size();
    out.push_back(std::move(w));
  }
  if (omitted == 0) return out;
  // Make room for the note by dropping from the end: the first warnings matter most.
  std::string note;
  while (true) {
    note = std::to_string(omitted) + " more warning(s) omitted";
    if (totalBytes(out) + note.size() <= kMaxWarningTotalBytes || out.empty()) break;
    out.pop_back();
    ++omitted;
  }
  out.push_back(std::move(note));
  return out;
}

}  // namespace gpua::admission
