#include "engine/classify/exemptions.hpp"

#include <algorithm>

#include "engine/pod/image_match.hpp"

namespace gpua::engine {

namespace {

bool covers(const policy::RuleExemption& e, const PodView& pod, std::string_view ns,
            const kube::Labels& nsLabels) {
  if (e.namespaces && !e.namespaces->matches(ns, nsLabels)) return false;
  return e.images.empty() || allImagesMatch(pod, e.images);
}

}  // namespace

std::string policyExemption(const PodView& pod, std::string_view namespaceName,
                            const kube::Labels& namespaceLabels, const policy::PolicySet& policy) {
  if (allImagesMatch(pod, policy.exemptImages))
    return "every container image is exempt (spec.exempt.images)";
  for (std::size_t i = 0; i < policy.ruleExemptions.size(); ++i) {
    const auto& e = policy.ruleExemptions[i];
    if (e.rules.empty() && covers(e, pod, namespaceName, namespaceLabels))
      return std::string(e.images.empty() ? "the namespace" : "every container image") +
             " is exempt (spec.ruleExemptions[" + std::to_string(i) + "])";
  }
  return {};
}

void dropExemptViolations(const PodView& pod, std::string_view namespaceName,
                          const kube::Labels& namespaceLabels, const policy::PolicySet& policy,
                          Violations& violations) {
  if (policy.ruleExemptions.empty() || violations.empty()) return;
  std::vector<const policy::RuleExemption*> applying;
  for (const auto& e : policy.ruleExemptions)
    if (covers(e, pod, namespaceName, namespaceLabels)) applying.push_back(&e);
  if (applying.empty()) return;
  auto exempt = [&](const Violation& v) {
    for (const auto* e : applying)
      if (e->rules.empty() || std::find(e->rules.begin(), e->rules.end(), v.rule) != e->rules.end())
        return true;
    return false;
  };
  violations.eraseIf(exempt);
}

}  // namespace gpua::engine
