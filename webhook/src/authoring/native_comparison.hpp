// A policy case judged by the compiled native policies (ValidatingAdmissionPolicies in a real
// apiserver, docs/native-backstop.md) next to the webhook's own answer: where the two differ,
// and whether a difference is one the compiler declares (a rule it does not compile). There is
// no CEL evaluator here: the native answer comes from a server-side dry-run create, which the
// CLI makes (`gpu-admission test --against-native`); this file only reads and compares.
#pragma once

#include <rapidjson/document.h>

#include <set>
#include <string>
#include <string_view>

#include "authoring/review_roundtrip.hpp"

namespace gpua::authoring {

// What the apiserver answered a dry-run create of the case's pod.
struct NativeAnswer {
  enum class Kind {
    Admitted,         // 201: every compiled policy passed (warn-mode ones may have warned)
    DeniedByPolicy,   // a ValidatingAdmissionPolicy denied it
    RefusedOtherwise  // the apiserver refused it for another reason (its own validation...)
  } kind = Kind::Admitted;
  std::string message;  // the Status message of a refusal
};

// Reads the apiserver's answer: its HTTP status and body (the created pod or a Status).
NativeAnswer nativeAnswerOf(int httpStatus, std::string_view body);

struct NativeComparison {
  enum class Result {
    Agree,        // same verdict (and a denial names a rule the webhook names)
    WebhookOnly,  // the webhook denies by rules the compiler does not compile: declared
    NotCompared,  // the apiserver refused the pod itself: nothing to compare
    Differ        // a difference the compiler does not declare: a failure
  } result = Result::Agree;
  std::string text;  // one line: what each side said
};

// `compiledRules`: the rule ids the compiled policies enforce (`compile --explain`).
NativeComparison compareWithNative(const ReviewReport& webhook, const NativeAnswer& native,
                                   const std::set<std::string, std::less<>>& compiledRules);

}  // namespace gpua::authoring
