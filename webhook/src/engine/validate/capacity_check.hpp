// The checks that need node data (SupplySnapshot): no-capacity, gpu-stranding and the waiting
// hint. Every figure they read was precomputed by summarizeSupply(), so a review costs a few map
// look-ups, never a walk over nodes.
#pragma once

#include <string>
#include <string_view>
#include <vector>
#include "policy/rule_ids.hpp"

#include "engine/classify/class_placement.hpp"
#include "engine/context/supply.hpp"
#include "engine/core/decision.hpp"
#include "engine/pod/gpu_request.hpp"
#include "engine/pod/pod_view.hpp"
#include "policy/policy_set.hpp"

namespace gpua::engine {

inline constexpr std::string_view kNoCapacityRule = policy::rules::kNoCapacity;
inline constexpr std::string_view kGpuStrandingRule = policy::rules::kGpuStranding;

struct CapacityInput {
  const PodView& pod;
  const PodGpu& gpu;
  const policy::PolicySet& policy;
  const policy::WorkloadClass& cls;
  const PoolList& pools;         // the class's pools
  std::string_view rewriteTo;    // see gpuRewriteTarget()
  const SupplySnapshot& supply;  // summarized for `policy`
};

// The class's capacityCheck, or the policy's default.
policy::CapacityCheck capacityCheckOf(const policy::WorkloadClass& cls,
                                      const policy::PolicySet& policy);

// Appends no-capacity and gpu-stranding violations (advisory when the class's capacityCheck is
// warn) and the waiting hint to `warnings`. Does nothing when capacityCheck is off, the supply
// is unavailable, or it was summarized for another policy revision.
void checkCapacity(const CapacityInput& in, Violations& violations, TextList& warnings);

}  // namespace gpua::engine
