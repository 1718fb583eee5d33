// Container resources per class: what the containers of a class's pods (its GPU pods unless
// `appliesTo` says otherwise) must carry (cpu and memory requests and limits, a minimum QoS class,
// maxima per GPU and per container, limit/request ratios, environment variables) and what is
// written when absent (requests per GPU or per container, limits copied from requests).
// spec.containers is the cluster default; a class's `containers` overrides it key by key.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "kube/quantity.hpp"

namespace gpua::policy {

// A quantity written in the policy: its exact value, and the text as written (for messages,
// and so that a default keeps the author's unit: 64Gi per GPU x 2 is written 128Gi).
struct PolicyQuantity {
  kube::Quantity value;
  std::string text;
};

// The lowest QoS class a GPU pod may have (Kubernetes' ComputePodQOS, cpu and memory only).
//   BestEffort: any pod (no check).  Burstable: some container sets a cpu or memory request or
//   limit.  Guaranteed: every container and init container has cpu and memory limits, and the
//   requests equal them.
enum class QosClass { BestEffort, Burstable, Guaranteed };

// Which of a class's pods a rule judges (`appliesTo`), one vocabulary for every rule that has
// a scope: the class's containers rules, its priority and runtime class rules, and
// spec.namespaceRules.
//   GpuPods: the pods that ask for GPUs.
//   PlacedPods (the default): the pods the class places on its pools: its GPU pods, and its pods
//     without GPUs when it places them (gpus.request: forbidden, or cpuPools). For a class that
//     takes GPU pods only this is GpuPods, the rules' scope before it could be chosen.
//   ClassPods: every pod the class takes, a CPU notebook of an optional-GPU class included.
//   AllPods: every pod the policy judges, those no class takes included (spec.containers and
//     namespace rules only; in a class it is ClassPods).
enum class RuleScope { GpuPods, PlacedPods, ClassPods, AllPods };

struct RequiredEnv {
  std::string name;
  std::optional<std::string> value;  // unset: any value (or valueFrom) will do
};

// The resources these rules speak about. GPUs are governed by a class's `gpus`.
inline constexpr const char* kContainerResources[] = {"cpu", "memory"};
// The resources limitsFromRequests may copy (LimitRange's: ephemeral storage too).
inline constexpr const char* kCopiedResources[] = {"cpu", "memory", "ephemeral-storage"};

struct ContainerRules {
  std::vector<std::string> requireRequests;  // "cpu", "memory"
  std::vector<std::string> requireLimits;
  QosClass qos = QosClass::BestEffort;
  std::map<std::string, PolicyQuantity> maxPerGpu;              // the pod's request / its GPUs
  std::map<std::string, PolicyQuantity> maxLimitRequestRatio;   // per container, >= 1
  std::map<std::string, PolicyQuantity> defaultRequestsPerGpu;  // mutation, x the container's GPUs
  std::vector<RequiredEnv> requiredEnv;  // GPU containers; every app container of a GPU-less pod
  // Per container (init containers too), LimitRange's `max`: its limit and its request.
  std::map<std::string, PolicyQuantity> maxPerContainer;
  // Mutation, LimitRange's `defaultRequest`: a container that sets neither a request nor a limit
  // of the resource gets this request (a GPU container gets defaultRequestsPerGpu instead).
  std::map<std::string, PolicyQuantity> defaultRequests;
  // Mutation: a container with a request (written or defaulted) and no limit of these gets a
  // limit equal to the request (the apiserver only copies the other way).
  std::vector<std::string> limitsFromRequests;
  RuleScope appliesTo = RuleScope::PlacedPods;

  // The class writes something into containers (the resourceRequests effect).
  bool writesDefaults() const {
    return !defaultRequestsPerGpu.empty() || !defaultRequests.empty() ||
           !limitsFromRequests.empty();
  }
  // True when no rule is set (the scope alone judges nothing).
  bool empty() const {
    return requireRequests.empty() && requireLimits.empty() && qos == QosClass::BestEffort &&
           maxPerGpu.empty() && maxLimitRequestRatio.empty() && requiredEnv.empty() &&
           maxPerContainer.empty() && !writesDefaults();
  }
};

// `containers` as written: each key that is set replaces the cluster default's (resolved after
// merging, since spec.containers may sit in another file).
struct ContainerRulesOverrides {
  std::optional<std::vector<std::string>> requireRequests, requireLimits;
  std::optional<QosClass> qos;
  std::optional<std::map<std::string, PolicyQuantity>> maxPerGpu, maxLimitRequestRatio,
      defaultRequestsPerGpu;
  std::optional<std::vector<RequiredEnv>> requiredEnv;
  std::optional<std::map<std::string, PolicyQuantity>> maxPerContainer, defaultRequests;
  std::optional<std::vector<std::string>> limitsFromRequests;
  std::optional<RuleScope> appliesTo;
};

}  // namespace gpua::policy
