// What a pod needs of one node at once: the app containers summed, or the
// largest init container if that is larger, where native sidecars (init containers with
// restartPolicy Always) keep running and so add to both. Kubernetes' PodRequests, for the GPU
// resources (after the class's rewrite) and, on demand, CPU and memory.
#pragma once

#include <array>
#include <cstdint>
#include <string_view>
#include <vector>

#include "engine/pod/gpu_request.hpp"
#include "engine/pod/pod_request_fold.hpp"

namespace gpua::engine {

// How a container of the pod counts in a PodRequestFold: an app container, a native sidecar
// (an init container with restartPolicy Always) or an ordinary init container.
ContainerRole roleOf(const ContainerGpu& c);

struct ResourceDemand {
  std::string_view resource;  // a view into the pod or the policy (valid for one decide())
  int64_t units = 0;
};

// The per-node demand of each GPU resource a pod asks for. Held in place for the usual few
// resources, so the request path allocates nothing for it.
class GpuDemand {
 public:
  void add(ResourceDemand d);
  std::size_t size() const { return count_; }
  const ResourceDemand& operator[](std::size_t i) const {
    return i < fixed_.size() ? fixed_[i] : spill_[i - fixed_.size()];
  }
  int64_t of(std::string_view resource) const;  // 0 when not asked for

 private:
  std::array<ResourceDemand, 4> fixed_{};
  std::vector<ResourceDemand> spill_;  // a fifth resource and beyond (rare)
  std::size_t count_ = 0;
};

// GPU units per resource name, nvidia.com/gpu counted as `rewriteTo` when that is non-empty;
// resources with demand 0 are left out.
GpuDemand perNodeGpuDemand(const PodGpu& gpu, std::string_view rewriteTo);

struct CpuMemoryDemand {
  int64_t cpuMillis = 0;
  int64_t memoryBytes = 0;
};

// CPU and memory requests (limits stand in for absent requests, as the apiserver defaults
// them), plus spec.overhead. Unreadable quantities count 0.
CpuMemoryDemand perNodeCpuMemory(const PodView& pod, const PodGpu& gpu);

}  // namespace gpua::engine
