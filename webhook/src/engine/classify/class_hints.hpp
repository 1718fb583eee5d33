// How a pod can join a GPU class, derived from the policy (never hard-coded): the classes a
// plain label rule selects, for messages that must say what to do ("add the label
// gpu-admission.io/class=<training|interactive>").
#pragma once

#include <functional>
#include <string>
#include <string_view>

#include "kube/label_selector.hpp"
#include "policy/policy_set.hpp"

namespace gpua::engine {

struct HintScope {
  const policy::PolicySet& policy;
  std::string_view namespaceName;
  const kube::Labels& namespaceLabels;
  // Only classes before this one are offered: first match wins, so a label of a class listed
  // later would not take the pod away from it. Null = every class.
  const policy::WorkloadClass* before = nullptr;
};

// The label that selects the class: the class's first `any` rule that tests only labels, as
// "k=v" (or "k1=v1,k2=v2"); empty when no plain label rule selects it on its own.
std::string classLabel(const policy::WorkloadClass& cls);

// "gpu-admission.io/class=<training|interactive>" (one key), "a=x or b=y" (several keys) for
// the GPU classes the namespace may use that `accept` lets through and a label can select;
// empty when there is none.
std::string gpuClassLabels(const HintScope& scope,
                           const std::function<bool(const policy::WorkloadClass&)>& accept);

}  // namespace gpua::engine
