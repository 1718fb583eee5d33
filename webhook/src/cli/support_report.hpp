// Printing a ReviewReport for people (text + YAML) and for scripts (one JSON object).
#pragma once

#include <rapidjson/document.h>

#include <string>

#include "cli/support_review.hpp"

namespace gpua::cli {

// "ADMITTED"/"DENIED" header, outcome, class, reason, mode, warnings, the patch and the patched
// object as YAML.
std::string reportText(const ReviewReport& r);

// {"object":{kind,namespace,name},"allowed","status","outcome","class","reason","mode",
//  "warnings","violations","auditAnnotations","patch","patchedObject"}
void reportJson(const ReviewReport& r, rapidjson::Value& out,
                rapidjson::Document::AllocatorType& a);

}  // namespace gpua::cli
