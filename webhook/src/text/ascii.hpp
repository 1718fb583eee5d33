// ASCII helpers for protocol tokens (header values, media types), which are case-insensitive.
#pragma once

#include <cctype>
#include <string_view>

namespace gpua::text {

// Case-insensitive ASCII equality, without building a lowered copy.
inline bool equalsIgnoreCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(a[i])) !=
        std::tolower(static_cast<unsigned char>(b[i])))
      return false;
  return true;
}

}  // namespace gpua::text
