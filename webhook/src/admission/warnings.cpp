#include "admission/warnings.hpp"

#include <algorithm>

#include "admission/text_sanitizer.hpp"
#include "admission/warning_split.hpp"

namespace gpua::admission {

namespace {

using Lines = std::vector<std::string>;

std::size_t totalBytes(const std::vector<Lines>& kept) {
  std::size_t n = 0;
  for (const auto& lines : kept)
    for (const auto& s : lines) n += s.size();
  return n;
}

// Every warning (as its lines) that fits the total budget, and how many did not.
std::vector<Lines> withinBudget(std::span<const std::string> warnings, std::size_t& omitted) {
  std::vector<std::string> seen;
  std::vector<Lines> kept;
  std::size_t total = 0;
  for (const auto& raw : warnings) {
    std::string w = sanitizeLine(raw, kMaxWarningTextBytes);
    if (w.empty() || std::find(seen.begin(), seen.end(), w) != seen.end()) continue;
    Lines lines = splitWarning(w, kMaxWarningBytes);
    seen.push_back(std::move(w));
    std::size_t size = 0;
    for (const auto& l : lines) size += l.size();
    if (omitted > 0 || total + size > kMaxWarningTotalBytes) {
      ++omitted;
      continue;
    }
    total += size;
    kept.push_back(std::move(lines));
  }
  return kept;
}

}  // namespace

bool warningsAreClean(std::span<const std::string> warnings) {
  constexpr std::size_t kMaxCompared = 16;  // more warnings than this take the general path
  if (warnings.size() > kMaxCompared) return false;
  std::size_t total = 0;
  for (std::size_t i = 0; i < warnings.size(); ++i) {
    const auto& w = warnings[i];
    if (w.empty() || !isCleanLine(w, kMaxWarningBytes)) return false;
    for (std::size_t j = 0; j < i; ++j)
      if (warnings[j] == w) return false;
    total += w.size();
  }
  return total <= kMaxWarningTotalBytes;
}

std::vector<std::string> sanitizeWarnings(std::span<const std::string> warnings) {
  std::size_t omitted = 0;
  std::vector<Lines> kept = withinBudget(warnings, omitted);
  if (omitted > 0) {
    // Make room for the note by dropping from the end: the first warnings matter most.
    std::string note;
    while (true) {
      note = std::to_string(omitted) + " more warning(s) omitted";
      if (totalBytes(kept) + note.size() <= kMaxWarningTotalBytes || kept.empty()) break;
      kept.pop_back();
      ++omitted;
    }
    kept.push_back({std::move(note)});
  }
  std::vector<std::string> out;
  for (auto& lines : kept)
    for (auto& l : lines) out.push_back(std::move(l));
  return out;
}

}  // namespace gpua::admission
