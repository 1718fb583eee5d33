// Printing a ReviewReport for people (text + YAML) and for scripts (one JSON object).
#pragma once

#include <rapidjson/document.h>

#include <string>

#include "authoring/review_roundtrip.hpp"

namespace gpua::authoring {

// "ADMITTED"/"DENIED" header, outcome, class, reason, mode, warnings, the patch and the patched
// object as YAML.
std::string reportText(const ReviewReport& r);

// {"object":{kind,namespace,name},"allowed","status","outcome","class","reason","mode",
//  "warnings","violations","auditAnnotations","patch","patchedObject"}
void reportJson(const ReviewReport& r, rapidjson::Value& out,
                rapidjson::Document::AllocatorType& a);

}  // namespace gpua::authoring
