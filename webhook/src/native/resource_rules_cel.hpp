// The class's `containers` rules (engine/validate/validate_container_resources.cpp) as CEL:
// container-resources-missing, qos-not-guaranteed, qos-best-effort, resources-per-gpu-exceeded,
// limit-request-ratio-exceeded, container-resources-exceeded, required-env-missing, in the
// engine's order, each a CEL list of the webhook's messages. The pod is judged as the engine
// judges it: requests defaulted from limits (the apiserver's defaulting) and, when the class
// writes them, its container defaults (containerAmount()).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "native/rule_cel.hpp"
#include "policy/policy_set.hpp"

namespace gpua::native {

// validateContainerResources() for the pods of `cls` (variables.cls already tested), or of the
// allPods pseudo-class (PolicySet::allPodsRules) for the pods no class takes. Rules the class
// does not set give no list.
std::vector<RuleList> containerResourceRules(const policy::PolicySet& policy,
                                             const policy::WorkloadClass& cls);

// engine quantityText() of `m` thousandths (a CEL int) in the style of the policy's text `like`:
// its binary or decimal unit when one divides, else whole, thousandths ("1500m").
std::string quantityTextMilli(const std::string& m, std::string_view like);

// When the allPods pseudo-class judges a pod (engine/decide's judgeByAllPodsRules): no class
// took it, and it asks for no GPU or unclassified GPU pods are allowed. "false" when the policy
// judges no pod that way.
std::string allPodsJudged(const policy::PolicySet& policy);

}  // namespace gpua::native
