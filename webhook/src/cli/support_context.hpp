// What the policy author's commands need besides the object: the policy set and the cluster
// state (namespace labels and GPU usage), built from command-line options or a case file.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "engine/supply.hpp"
#include "engine/usage.hpp"
#include "kube/label_selector.hpp"
#include "policy/policy_set.hpp"

namespace gpua::cli {

// Loads policy files/directories. On errors prints every diagnostic (file:line:col) to stderr
// and throws InputError summarising the count.
std::shared_ptr<const policy::PolicySet> loadPolicies(const std::vector<std::string>& paths);

// "team=vision,env=dev" -> labels. Throws UsageError on an entry without '='.
kube::Labels parseLabelList(const std::string& text);

// No usage file given: quotas are checked against an empty cluster (available, nothing in use).
engine::UsageSnapshot emptyUsage();

// Usage unknown: quota checks follow the policy's quotaUnavailable (fail-open/fail-closed).
engine::UsageSnapshot unavailableUsage(std::string reason);

// `kubectl get pods -A -o json` (and optionally `kubectl get ns -o json`) files. Throws
// InputError naming the file.
engine::UsageSnapshot usageFromFiles(const std::vector<std::string>& paths,
                                     const policy::PolicySet& policy);

// Node supply for --nodes-from / a case's `nodes:`: the nodes of `kubectl get nodes -o json`
// files, with allocated units and the pending queue from the pod lists among `podsFiles`
// (`kubectl get pods -A -o json`; namespace lists are skipped), summarized for `policy`. The
// queue's wait times are measured from now. Throws InputError naming the file.
engine::SupplySnapshot supplyFromFiles(const std::vector<std::string>& nodesFiles,
                                       const std::vector<std::string>& podsFiles,
                                       const policy::PolicySet& policy);

}  // namespace gpua::cli
