// Renders native ResourceQuota manifests from the policy's quotas: the atomic backstop behind
// the webhook's early check (two webhook replicas can admit concurrently; the apiserver's quota
// admission cannot be raced).
//
// Conversion rule (conservative = never stricter than the policy): a GPU-equivalent budget B
// becomes, for every GPU resource r the policy knows, requests.<r> = floor(B / GE-per-unit(r)),
// the most units of r the budget allows on its own; an explicit per-resource limit caps it
// further. So the backstop never denies a pod the webhook admits, and it stops a race from
// going past what any one resource could use. What ResourceQuota cannot express (a budget shared
// across namespaces, a mix of resources summed in GPU-equivalents, a class without a priority
// class) is said in a comment in the output.
#pragma once

#include <rapidjson/document.h>

#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "kube/label_selector.hpp"
#include "policy/policy_set.hpp"

namespace gpua::inventory {

struct NamespaceInfo {
  std::string name;
  kube::Labels labels;
};

class NamespaceSpecError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// `kubectl get ns -o json` (a NamespaceList or List), a bare array, or a single Namespace.
std::vector<NamespaceInfo> namespacesFromJson(const rapidjson::Value& list);

// "team-a=team=vision,env=dev" or "team-a": a name and its labels. Throws NamespaceSpecError.
NamespaceInfo parseNamespaceSpec(std::string_view spec);

struct QuotaRender {
  std::string yaml;                // multi-document YAML with explanatory comments
  int manifests = 0;               // ResourceQuota objects written
  std::vector<std::string> notes;  // what could not be expressed (also in the YAML as comments)
};

// `namespaces` absent: only quotas that name their namespaces can be rendered; label-selected
// quotas are reported in notes.
QuotaRender renderResourceQuotas(const policy::PolicySet& policy,
                                 const std::optional<std::vector<NamespaceInfo>>& namespaces);

}  // namespace gpua::inventory
