#include "kube/object_names.hpp"

namespace gpua::kube {

namespace {

bool isAlnum(char c) {
  return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
}

// One label of at most `max` bytes.
bool isLabel(std::string_view s, std::size_t max) {
  if (s.empty() || s.size() > max || !isAlnum(s.front()) || !isAlnum(s.back())) return false;
  for (char c : s)
    if (!isAlnum(c) && c != '-') return false;
  return true;
}

}  // namespace

bool isDnsLabel(std::string_view s) {
  return isLabel(s, kMaxDnsLabelBytes);
}

bool isDnsSubdomain(std::string_view s) {
  if (s.empty() || s.size() > kMaxDnsSubdomainBytes) return false;
  for (std::size_t start = 0;;) {
    const auto dot = s.find('.', start);
    if (!isLabel(s.substr(start, dot - start), kMaxDnsSubdomainBytes)) return false;
    if (dot == std::string_view::npos) return true;
    start = dot + 1;
  }
}

}  // namespace gpua::kube
