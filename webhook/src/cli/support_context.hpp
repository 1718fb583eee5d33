// What the policy author's commands need besides the object: the policy set and the cluster
// state (namespace labels and GPU usage), built from command-line options or a case file.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "engine/usage.hpp"
#include "policy/label_selector.hpp"
#include "policy/policy_set.hpp"

namespace gpua::cli {

// Loads policy files/directories. On errors prints every diagnostic (file:line:col) to stderr
// and throws InputError summarising the count.
std::shared_ptr<const policy::PolicySet> loadPolicies(const std::vector<std::string>& paths);

// "team=vision,env=dev" -> labels. Throws UsageError on an entry without '='.
policy::Labels parseLabelList(const std::string& text);

// No usage file given: quotas are checked against an empty cluster (available, nothing in use).
engine::UsageSnapshot emptyUsage();

// Usage unknown: quota checks follow the policy's quotaUnavailable (fail-open/fail-closed).
engine::UsageSnapshot unavailableUsage(std::string reason);

// `kubectl get pods -A -o json` (and optionally `kubectl get ns -o json`) files. Throws
// InputError naming the file.
engine::UsageSnapshot usageFromFiles(const std::vector<std::string>& paths,
                                     const policy::PolicySet& policy);

}  // namespace gpua::cli
