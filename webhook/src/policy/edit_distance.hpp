// "Did you mean ...?" suggestions for misspelt keys, enum values and names.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace gpua::policy {

// Levenshtein distance, comparing ASCII letters case-insensitively.
std::size_t editDistance(std::string_view a, std::string_view b);

// The candidate closest to `word`, or "" when none is close enough to be a plausible typo.
std::string nearest(std::string_view word, const std::vector<std::string>& candidates);

// "did you mean 'x'?" when a candidate is close, else "expected one of: a, b, c".
std::string suggestion(std::string_view word, const std::vector<std::string>& candidates);

}  // namespace gpua::policy
