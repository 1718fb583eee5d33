#include "policy/edit_distance.hpp"

#include <algorithm>
#include <cctype>

namespace gpua::policy {

namespace {

char lower(char c) {
  return static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
}

// Comma-separated, each item once, first occurrence order.
std::string joined(const std::vector<std::string>& items) {
  std::string out;
  std::vector<std::string_view> seen;
  for (const auto& i : items) {
    if (std::find(seen.begin(), seen.end(), i) != seen.end()) continue;
    seen.push_back(i);
    out += (out.empty() ? "" : ", ") + i;
  }
  return out;
}

}  // namespace

std::size_t editDistance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t above = row[j];
      const std::size_t cost = lower(a[i - 1]) == lower(b[j - 1]) ? 0 : 1;
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + cost});
      diagonal = above;
    }
  }
  return row[b.size()];
}

std::string nearest(std::string_view word, const std::vector<std::string>& candidates) {
  std::string best;
  std::size_t bestDistance = 0;
  for (const auto& c : candidates) {
    const std::size_t d = editDistance(word, c);
    if (best.empty() || d < bestDistance) {
      best = c;
      bestDistance = d;
    }
  }
  // Allow roughly one typo per three characters, at least two: "replica" -> "replicas",
  // "nodeselectr" -> "nodeSelector", but not "foo" -> "pools".
  const std::size_t limit = std::max<std::size_t>(2, word.size() / 3);
  return bestDistance <= limit ? best : std::string();
}

std::string suggestion(std::string_view word, const std::vector<std::string>& candidates) {
  if (candidates.empty()) return "";
  const std::string best = nearest(word, candidates);
  if (!best.empty()) return "did you mean '" + best + "'?";
  return "expected one of: " + joined(candidates);
}

}  // namespace gpua::policy
