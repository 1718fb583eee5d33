// What a pod needs of one node at once (DESIGN.md section 7): the app containers summed, or the
// largest init container if that is larger, where native sidecars (init containers with
// restartPolicy Always) keep running and so add to both. Kubernetes' PodRequests, for the GPU
// resources (after the class's rewrite) and, on demand, CPU and memory.
#pragma once

#include <cstdint>
#include <string_view>

#include "engine/gpu_request.hpp"
#include "engine/supply.hpp"

namespace gpua::engine {

// GPU units per resource name, nvidia.com/gpu counted as `rewriteTo` when that is non-empty.
ResourceUnits perNodeGpuDemand(const PodGpu& gpu, std::string_view rewriteTo);

struct CpuMemoryDemand {
  int64_t cpuMillis = 0;
  int64_t memoryBytes = 0;
};

// CPU and memory requests (limits stand in for absent requests, as the apiserver defaults
// them), plus spec.overhead. Unreadable quantities count 0.
CpuMemoryDemand perNodeCpuMemory(const PodView& pod, const PodGpu& gpu);

}  // namespace gpua::engine
