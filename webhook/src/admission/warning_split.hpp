// One long warning as several short ones. kubectl prints each AdmissionResponse warning on its
// own "Warning:" line, so each is kept to at most 120 characters (docs/policy-reference.md):
// the apiserver cuts every warning to 256 characters once a request's warnings pass 4 KiB, which
// the other webhooks of the chain share. Splitting keeps the whole text, in reading order, so the
// numbers at the start and the fix at the end both reach the user.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace gpua::admission {

// Every part but the last ends with "...", every part but the first starts with "... ". The
// marks are added, never replace text: joinWarningLines() gives the line back byte for byte.
inline constexpr std::string_view kWarningContinuesMark = "...";
inline constexpr std::string_view kWarningContinuedMark = "... ";

// `line` (one clean line: valid UTF-8, no control characters) in parts of at most maxBytes
// bytes (so at most maxBytes characters), each cut after a clause (": ", "; ", ", ") or a space
// near the end of the part, else after a JSON separator, else at a UTF-8 character boundary.
// A line within maxBytes comes back as it is. maxBytes must exceed 16.
std::vector<std::string> splitWarning(std::string_view line, std::size_t maxBytes);

// The inverse, for readers of a response (the CLI): lines that continue the one before are
// joined back into the warning they were split from.
std::vector<std::string> joinWarningLines(const std::vector<std::string>& lines);

}  // namespace gpua::admission
