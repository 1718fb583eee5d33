// Comma-separated option values ("policies,extra.yaml").
#pragma once

#include <string>
#include <vector>

namespace gpua::cli {

// Splits on ',' and drops empty entries.
inline std::vector<std::string> splitList(const std::string& text) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (start <= text.size()) {
    auto end = text.find(',', start);
    if (end == std::string::npos) end = text.size();
    if (end > start) out.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return out;
}

}  // namespace gpua::cli
