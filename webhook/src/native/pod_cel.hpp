// What the compiled policy knows about a pod, as CEL: the variables every compiled
// ValidatingAdmissionPolicy declares (namespace, labels, containers, GPU units, skip rules,
// rollout mode, the class by first match) and the per-container expressions the rules share.
// The GPU reading follows engine/pod/gpu_request: nvidia.com/gpu, nvidia.com/mig-* and the
// pools' resources are GPUs; a container's units are its limits (the apiserver refuses an
// extended resource without a limit, and a request that differs from it, before admission
// policies run).
#pragma once

#include <functional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "policy/policy_set.hpp"

namespace gpua::native {

// A policy feature CEL cannot express here (yet): the compiler leaves the rules that depend on
// it out and says why.
class NotCompilable : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// One `variables` entry of a ValidatingAdmissionPolicy.
struct CelVariable {
  std::string name;
  std::string expression;
};

// The pod's facts: nsName, nsLabels, labels, annotations, scheduler, ctrs, inits, hasGpu,
// requestsMig, total, subject, exempt, skip, mode, cls, matched, and the placement variables of
// placement_conflict_cel.hpp. Throws NotCompilable when the
// classification cannot be written (an image matcher).
std::vector<CelVariable> podVariables(const policy::PolicySet& policy);

// Per container `c` (a CEL identifier bound to a container object):
struct ContainerCel {
  const policy::PolicySet& policy;
  std::string isGpu(const std::string& key) const;  // the key names a GPU resource
  std::string limits(const std::string& c) const;   // its resources.limits, or {}
  std::string units(const std::string& c) const;    // int: GPU units of the container
  std::string unitsOf(const std::string& c, const std::string& key) const;  // int, one key
  std::string gpuKeys(const std::string& c) const;           // list: GPU keys with units > 0
  std::string wantsGpu(const std::string& c) const;  // units (limits or requests) > 0, or claims
  std::string label(const std::string& c, bool init) const;  // "container \"name\""
  // The container's GPU resource when it asks for exactly one, else "GPUs".
  std::string resourceWord(const std::string& c) const;
};

// The pod's required node affinity terms (a list, [] when it has none), and its
// spec.nodeSelector (a map, {} when none): what placement is read from.
std::string requiredTerms();
std::string nodeSelector();

// The classes a plain label selects (engine/classify/class_hints), as a CEL string: the classes
// before `before` (all when null) the namespace may use, for which `accept` (a CEL condition
// per class, may be "true") holds, joined as gpuClassLabels() joins them.
std::string classLabelHint(const policy::PolicySet& policy, const policy::WorkloadClass* before,
                           const std::function<std::string(const policy::WorkloadClass&)>& accept);

}  // namespace gpua::native
