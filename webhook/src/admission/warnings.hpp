// AdmissionResponse.warnings as the apiserver wants them: it silently drops a warning with a
// newline or control character and caps the total per request, so we clean and budget them here.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace gpua::admission {

inline constexpr std::size_t kMaxWarningBytes = 256;        // one warning (aim: 120 characters)
inline constexpr std::size_t kMaxWarningTotalBytes = 4096;  // all warnings of one response

// Each warning through sanitizeLine(kMaxWarningBytes); empty and duplicate warnings dropped;
// warnings that would exceed the total budget dropped, and the last kept one replaced by a note
// saying how many were omitted (when it fits).
std::vector<std::string> sanitizeWarnings(const std::vector<std::string>& warnings);

}  // namespace gpua::admission
