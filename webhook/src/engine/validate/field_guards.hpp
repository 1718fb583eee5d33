// Field guards every judged pod gets, whatever its class (spec.fieldGuards, on by default).
// gpu-pool-without-request lives in validate_pool_targeting.cpp; this is the env guard.
#pragma once

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
                            std::vector<Violation>& out);

}  // namespace gpua::engine
