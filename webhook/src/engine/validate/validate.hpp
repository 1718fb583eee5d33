// Validation rules for a pod (or pod template) and its class. Each broken rule becomes a
// Violation with a stable rule id and a one-line message that names the pod, the container,
// the resource, the rule and what to do.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "engine/classify/class_placement.hpp"
#include "engine/context/supply.hpp"
#include "engine/core/decision.hpp"
#include "engine/pod/gpu_request.hpp"
#include "engine/pod/pod_view.hpp"
#include "kube/label_selector.hpp"
#include "policy/policy_set.hpp"

namespace gpua::engine {

struct ValidationInput {
  const PodView& pod;
  const PodGpu& gpu;
  const policy::PolicySet& policy;
  const policy::WorkloadClass& cls;
  const PoolList& pools;  // the class's pools
  std::string_view namespaceName;
  const kube::Labels& namespaceLabels;
  std::string_view rewriteTo;  // see gpuRewriteTarget()
  // What selected the class, in words ("label serving.kserve.io/inferenceservice"); empty when
  // unclassifiedGpuPods assigned it.
  std::string_view matchedBy = {};
  // A validateOnly skip rule matched: the pod is checked but never mutated, so the class's
  // defaults (containers.defaultRequestsPerGpu) are not counted as written.
  bool validateOnly = false;
};

// class-not-allowed, missing-gpu-request, gpu-forbidden, max-per-container, max-per-pod,
// shared-gpu-over-one, mig-profile-unavailable, priority-class-not-allowed.
void validateClass(const ValidationInput& in, Violations& out);

// gpu-pool-without-request: a pod that asks for no GPU but steers itself onto a GPU pool by
// nodeSelector, required node affinity or an explicit toleration of a pool taint.
// With node supply (`supply` available), spec.nodeName on a node of a GPU pool counts too.
void validatePoolTargeting(const PodView& pod, const PodGpu& gpu, const policy::PolicySet& policy,
                           Violations& out, const SupplySnapshot* supply = nullptr);

// The class's workload rules (containers, placement, checkpoints), for pods that get the class's
// placement (GPU pods, and CPU pods of a class that places them): node-selector-conflict,
// checkpoint-missing, checkpoint-dangling, checkpoint-invalid.
void validateClassWorkloadRules(const ValidationInput& in, Violations& out);

// The class's `containers` rules on the pods of their scope (validate_container_resources.cpp):
// container-resources-missing, qos-not-guaranteed, qos-best-effort, resources-per-gpu-exceeded,
// limit-request-ratio-exceeded, container-resources-exceeded, required-env-missing.
void validateContainerResources(const ValidationInput& in, Violations& out);

// The allPods rules for a pod no class takes (`in.cls` is PolicySet::allPodsRules, `in.pools`
// empty): spec.containers of that scope, its defaults in require mode, the namespace rules.
void validateAllPodsRules(const ValidationInput& in, Violations& out);

// The pod's DRA claims under spec.dra (validate_claims.cpp): dra-claim-unresolved (denies with
// unresolvedClaims: deny, else advisory) and dra-claim-size-unknown (advisory), for any pod.
void validateClaims(const PodView& pod, const PodGpu& gpu, const policy::PolicySet& policy,
                    Violations& out);
// device-class-not-allowed: a GPU claim of a device class the class's gpus.deviceClasses lacks.
void checkClassDeviceClasses(const ValidationInput& in, Violations& out);

// node-selector-conflict (placement via nodeSelector, onConflict keep or deny).
void checkNodeSelectorConflict(const PodView& pod, const policy::WorkloadClass& cls,
                               const PoolList& pools, Violations& out);

// Why a pod must declare a checkpoint, as `<before><name><after>` (" is in class training, which
// requires a checkpoint,"): the words are joined only when a message needs them.
struct CheckpointReason {
  std::string_view before, name, after;
  std::string text() const {
    std::string out;
    out.append(before).append(name).append(after);
    return out;
  }
};

// checkpoint-*: `why` continues the subject (" is in class training, which requires ...,").
void checkCheckpoint(const PodView& pod, const policy::CheckpointRule& rule,
                     const CheckpointReason& why, Violations& out);
// How a pod declares its checkpoint, the fix every checkpoint-* message ends with.
std::string howToDeclareCheckpoint(const policy::CheckpointRule& rule);

}  // namespace gpua::engine
