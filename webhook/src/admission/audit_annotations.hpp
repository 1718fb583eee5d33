// AdmissionResponse.auditAnnotations: the apiserver rejects the whole response when a key is
// not a valid qualified name part: no '/', at most 63 characters of [A-Za-z0-9-_.], starting and
// ending alphanumeric. It prefixes each key with the webhook's name itself.
#pragma once

#include <string>
#include <string_view>

#include "engine/core/annotation_map.hpp"

namespace gpua::admission {

inline constexpr std::size_t kMaxAuditKeyBytes = 63;

bool isValidAuditAnnotationKey(std::string_view key);

// Maps a key to a valid one: characters outside the set become '-', the ends are trimmed to
// alphanumerics, the length is capped. Empty when nothing valid is left.
std::string sanitizeAuditAnnotationKey(std::string_view key);

// Every entry with a sanitized key (first one wins on a collision; empty keys dropped) and a
// value cleaned to one line of valid UTF-8.
engine::AnnotationMap sanitizeAuditAnnotations(const engine::AnnotationMap& annotations);

// True when sanitizeAuditAnnotations(annotations) is `annotations` itself (valid keys, clean
// values), so a writer can use them without the copy.
bool auditAnnotationsAreClean(const engine::AnnotationMap& annotations);

}  // namespace gpua::admission
