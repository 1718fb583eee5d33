// GPU quotas: does this pod fit the budgets of the quotas that cover its namespace, given the
// usage snapshot? Pods only (a workload's pods are checked when they are created).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>
#include "policy/rule_ids.hpp"

#include "engine/context/usage.hpp"
#include "engine/core/decision.hpp"
#include "engine/pod/gpu_request.hpp"
#include "policy/namespace_selector.hpp"
#include "policy/policy_set.hpp"

namespace gpua::engine {

inline constexpr std::string_view kQuotaUnavailableRule = policy::rules::kQuotaUnavailable;

struct QuotaInput {
  std::string_view subject;  // `pod "x"`
  std::string_view namespaceName;
  const kube::Labels& namespaceLabels;
  const policy::PolicySet& policy;
  const UsageSnapshot& usage;
  const policy::WorkloadClass* cls;  // null for unclassified pods
  double gpuEquivalents;             // what the pod adds, after the rewrite
  const GpuUnits& units;             // per resource, after the rewrite
  const PodGpu& gpu;                 // per container, for class hints
  bool isTemplate = false;
};

// "1 GPU-equivalent", "0.29 GPU-equivalents"
std::string gpuEquivalentsText(double v);
void appendGpuEquivalents(std::string& out, double v);  // the same, appended

// Appends "quota" / "quota-unavailable" violations, or a warning when quotas cannot be
// checked and the policy fails open. Returns true when a quota applied but could not be checked.
bool checkQuotas(const QuotaInput& in, Violations& violations, TextList& warnings);

// The names of the quotas that cover a namespace (what a pod there must reserve against).
std::vector<std::string> quotasCovering(const policy::PolicySet& policy,
                                        std::string_view namespaceName,
                                        const kube::Labels& namespaceLabels);

// "namespaces with team=vision", "namespace ml", "all namespaces"
std::string describeNamespaces(const policy::NamespaceSelector& selector);
void appendNamespaces(std::string& out, const policy::NamespaceSelector& selector);  // appended

}  // namespace gpua::engine
