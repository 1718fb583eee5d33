// Field guards every judged pod gets, whatever its class (spec.fieldGuards): the env guard (on
// by default) and the placement guards (opt-in). gpu-pool-without-request lives in
// validate_pool_targeting.cpp.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "engine/core/decision.hpp"
#include "engine/pod/gpu_request.hpp"
#include "engine/pod/pod_view.hpp"
#include "policy/policy_set.hpp"

namespace gpua::engine {

// visible-devices-without-gpu: a container that asks for no GPU but sets NVIDIA_VISIBLE_DEVICES
// or CUDA_VISIBLE_DEVICES to anything but void, none or empty. On a GPU node the NVIDIA runtime
// would give it the GPUs named there, which the device plugin never allocated.
void checkVisibleDevicesEnv(const PodView& pod, const PodGpu& gpu, const policy::PolicySet& policy,
                            Violations& out);

// node-affinity-forbidden, node-selector-forbidden, node-name-forbidden, toleration-forbidden:
// placement the pod's author chose. `classPools` are the pools the pod's class writes or
// requires for it (empty for a pod no class places): their requirements, labels and taint
// tolerations are the class's and never count, so the class's own output and a require-mode
// pod pass. A DaemonSet pod's matchFields term (the controller's) does not count either.
void checkPlacementGuards(const PodView& pod, std::span<const policy::Pool* const> classPools,
                          const policy::PolicySet& policy, Violations& out);

// What every placement guard's message says between the finding and the fix:
// `, which policy "p" forbids (fieldGuards.<guard>): ` (the native compiler writes it too).
std::string forbiddenByFieldGuard(const policy::PolicySet& policy, std::string_view guard);

}  // namespace gpua::engine
