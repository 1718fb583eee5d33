#include "admission/audit_annotations.hpp"

#include "admission/text_sanitizer.hpp"

namespace gpua::admission {

namespace {

constexpr std::size_t kMaxAuditValueBytes = 1024;  // audit events are not a place for essays

bool isAlnum(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

bool isKeyChar(char c) {
  return isAlnum(c) || c == '-' || c == '_' || c == '.';
}

}  // namespace

bool isValidAuditAnnotationKey(std::string_view key) {
  if (key.empty() || key.size() > kMaxAuditKeyBytes) return false;
  if (!isAlnum(key.front()) || !isAlnum(key.back())) return false;
  for (char c : key)
    if (!isKeyChar(c)) return false;
  return true;
}

std::string sanitizeAuditAnnotationKey(std::string_view key) {
  std::string out;
  out.reserve(key.size());
  for (char c : key) out.push_back(isKeyChar(c) ? c : '-');
  std::size_t begin = 0;
  while (begin < out.size() && !isAlnum(out[begin])) ++begin;
  out.erase(0, begin);
  if (out.size() > kMaxAuditKeyBytes) out.resize(kMaxAuditKeyBytes);
  while (!out.empty() && !isAlnum(out.back())) out.pop_back();
  return out;
}

bool auditAnnotationsAreClean(const engine::AnnotationMap& annotations) {
  for (const auto& [key, value] : annotations)
    if (!isValidAuditAnnotationKey(key) || !isCleanLine(value, kMaxAuditValueBytes)) return false;
  return true;
}

engine::AnnotationMap sanitizeAuditAnnotations(const engine::AnnotationMap& annotations) {
  engine::AnnotationMap out;
  for (const auto& [key, value] : annotations) {
    const std::string k = sanitizeAuditAnnotationKey(key);
    if (k.empty() || out.contains(k)) continue;  // the first one wins
    out[k] = sanitizeLine(value, kMaxAuditValueBytes);
  }
  return out;
}

}  // namespace gpua::admission
