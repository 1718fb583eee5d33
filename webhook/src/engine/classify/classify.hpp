// Matching pods against policy matchers: skip rules and workload classes (first match wins),
// with a reason in words that says which rule matched.
#pragma once

#include <string>
#include <string_view>

#include "engine/pod/gpu_request.hpp"
#include "engine/pod/pod_view.hpp"
#include "kube/label_selector.hpp"
#include "policy/policy_set.hpp"

namespace gpua::engine {

// The annotations a classified pod carries: its class and the policy that classified it (the
// usage ledger reads the class back from a bound pod).
inline constexpr std::string_view kClassAnnotation = "gpu-admission.io/class";
inline constexpr std::string_view kPolicyAnnotation = "gpu-admission.io/policy";
// What objects generated from a policy (compiled admission policies, rendered ResourceQuotas)
// carry: the revision of the policy they were made from.
inline constexpr std::string_view kPolicyRevisionAnnotation = "gpu-admission.io/policy-revision";

struct MatchInput {
  const PodView& pod;
  const PodGpu& gpu;
  std::string_view namespaceName;
  const kube::Labels& namespaceLabels;
};

bool matchRule(const policy::MatchRule& rule, const MatchInput& in);

// "label gpu-admission.io/class=training and scheduler volcano"
std::string describeRule(const policy::MatchRule& rule, const MatchInput& in);
// The same, appended to `out`.
void appendRuleDescription(std::string& out, const policy::MatchRule& rule, const MatchInput& in);

struct Classification {
  const policy::WorkloadClass* cls = nullptr;  // null when no class matched
  std::string reason;
  std::string rule;  // the matched rule alone: "label gpu-admission.io/class=training"
};

// The first class whose matcher holds; reason like
// "label gpu-admission.io/class=training (class training, match rule 1)".
Classification classify(const MatchInput& in, const policy::PolicySet& policy);
// The same, the reason appended to `reason` (the request path's kept string); its first
// `ruleBytes` appended bytes are the matched rule alone (Classification::rule). Null, and
// nothing appended, when no class matches.
const policy::WorkloadClass* classifyInto(const MatchInput& in, const policy::PolicySet& policy,
                                          std::string& reason, std::size_t& ruleBytes);

// The first skip rule that matches, or nullptr.
const policy::SkipRule* findSkipRule(const MatchInput& in, const policy::PolicySet& policy);

}  // namespace gpua::engine
