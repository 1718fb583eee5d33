// The engine's per-object validation rules as CEL: each compiled rule is a CEL list of the
// messages the webhook would give, in the engine's order (engine/decide.cpp evaluate(),
// engine/validate/validate_class.cpp), with the same text: subject, rule numbers and fix.
#pragma once

#include <string>
#include <vector>

#include "native/pod_cel.hpp"
#include "policy/policy_set.hpp"

namespace gpua::native {

// The rule ids the compiled lists cover.
const std::vector<std::string>& compiledRuleIds();

// A CEL list(string): every violation of the compiled rules for the pod, in the engine's order
// (an empty list when the pod passes). Reads the variables of podVariables().
std::string violationList(const policy::PolicySet& policy);

// The same as variables: one per rule (and class), each within the apiserver's limit on one
// expression's size (100,000 code points), then `violations`, their concatenation.
std::vector<CelVariable> violationVariables(const policy::PolicySet& policy);

}  // namespace gpua::native
