// What GPUs a pod holds, in units and in GPU-equivalents, under a policy. Shared by the engine's
// quota check and by the usage ledger (cluster/) and --usage-from, so all count the same way.
#pragma once

#include <rapidjson/document.h>

#include <cstdint>
#include <map>
#include <string>

#include "policy/policy_set.hpp"

namespace gpua::engine {

struct PodGpuUsage {
  // Effective units per GPU resource name (nvidia.com/gpu, nvidia.com/mig-1g.10gb, ...):
  // max(sum of app containers, max of any init container), limits falling back to requests.
  std::map<std::string, int64_t> units;
  double gpuEquivalents = 0;
  // The class recorded in the pod's gpu-admission.io/class annotation, else the class the
  // policy's matchers pick, else empty.
  std::string className;
  bool hasResourceClaims = false;  // spec.resourceClaims non-empty (DRA)
};

// GPU-equivalents of `units` of `resource`: nvidia.com/gpu = 1; nvidia.com/mig-<g>g.* = g / slices
// of the model whose pools offer the profile (7 when unknown); a pool's shared resource =
// 1 / replicas. Resources that are not GPUs count 0.
double gpuEquivalentsOf(std::string_view resource, int64_t units, const policy::PolicySet& policy);

PodGpuUsage podGpuUsage(const rapidjson::Value& pod, const policy::PolicySet& policy);

}  // namespace gpua::engine
