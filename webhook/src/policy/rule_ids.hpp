// The stable ids of the rules the engine reports (Violation::rule), so that a policy can name
// one (spec.ruleExemptions) and the loader can refuse a misspelt id with a "did you mean" hint.
// A rule added to the engine is added here too, or it cannot be exempted.
#pragma once

#include <string>
#include <vector>

namespace gpua::policy {

const std::vector<std::string>& knownRuleIds();

}  // namespace gpua::policy
