#include "policy/diagnostic.hpp"

namespace gpua::policy {

std::string Diagnostic::format() const {
  std::string out = file.empty() ? std::string("<policy>") : file;
  // Line and column are only printed when known, so editors can still jump to the file.
  if (line > 0) {
    out += ':' + std::to_string(line);
    if (column > 0) out += ':' + std::to_string(column);
  }
  out += ": ";
  if (!keyPath.empty()) out += keyPath + ": ";
  out += message;
  if (!hint.empty()) out += " (hint: " + hint + ")";
  return out;
}

std::string joinNames(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& n : names) out.append(out.empty() ? "" : ", ").append(n);
  return out;
}

}  // namespace gpua::policy
