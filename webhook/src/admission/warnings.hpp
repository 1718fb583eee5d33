// AdmissionResponse.warnings as the apiserver wants them: it silently drops a warning with a
// newline or control character, cuts each one to 256 characters once a request's warnings pass
// 4 KiB (shared with every other webhook of the chain), and kubectl prints each on its own line;
// lines of at most 120 characters stay readable there. So we clean, split and budget them here.
#pragma once

#include <cstddef>
#include <span>
#include <string>
#include <vector>

namespace gpua::admission {

inline constexpr std::size_t kMaxWarningBytes = 120;        // one warning line (<= 120 characters)
inline constexpr std::size_t kMaxWarningTextBytes = 600;    // one engine warning before splitting
inline constexpr std::size_t kMaxWarningTotalBytes = 4096;  // all warnings of one response

// Each warning through sanitizeLine(kMaxWarningTextBytes), then split into lines of at most
// kMaxWarningBytes (splitWarning); empty and duplicate warnings dropped; warnings whose lines
// would exceed the total budget dropped whole, and the last kept one replaced by a note saying
// how many were omitted (when it fits).
std::vector<std::string> sanitizeWarnings(std::span<const std::string> warnings);
inline std::vector<std::string> sanitizeWarnings(const std::vector<std::string>& warnings) {
  return sanitizeWarnings(std::span<const std::string>(warnings));
}

// True when sanitizeWarnings(warnings) is `warnings` itself: every warning a clean line of one
// warning line's length, none empty or repeated, all within the budget. The engine's warnings
// nearly always are, and the response writer then writes them without copying.
bool warningsAreClean(std::span<const std::string> warnings);
inline bool warningsAreClean(const std::vector<std::string>& warnings) {
  return warningsAreClean(std::span<const std::string>(warnings));
}

}  // namespace gpua::admission
