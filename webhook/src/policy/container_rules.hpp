// Container resources per class: what the containers of a class's GPU
// pods must carry (cpu and memory requests and limits, a minimum QoS class, maxima per GPU,
// limit/request ratios, environment variables) and the requests written per GPU when absent.
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

struct RequiredEnv {
  std::string name;
  std::optional<std::string> value;  // unset: any value (or valueFrom) will do
};

// The resources these rules speak about. GPUs are governed by a class's `gpus`.
inline constexpr const char* kContainerResources[] = {"cpu", "memory"};

struct ContainerRules {
  std::vector<std::string> requireRequests;  // "cpu", "memory"
  std::vector<std::string> requireLimits;
  QosClass qos = QosClass::BestEffort;
  std::map<std::string, PolicyQuantity> maxPerGpu;              // the pod's request / its GPUs
  std::map<std::string, PolicyQuantity> maxLimitRequestRatio;   // per container, >= 1
  std::map<std::string, PolicyQuantity> defaultRequestsPerGpu;  // mutation, x the container's GPUs
  std::vector<RequiredEnv> requiredEnv;                         // on containers that ask for a GPU

  bool empty() const {
    return requireRequests.empty() && requireLimits.empty() && qos == QosClass::BestEffort &&
           maxPerGpu.empty() && maxLimitRequestRatio.empty() && defaultRequestsPerGpu.empty() &&
           requiredEnv.empty();
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
};

}  // namespace gpua::policy
