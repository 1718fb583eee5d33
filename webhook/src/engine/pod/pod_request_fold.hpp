// Kubernetes' effective pod request for one resource (the kubelet's and
// scheduler's PodRequests): app containers and native sidecars (init containers with
// restartPolicy Always, which keep running) are summed; each ordinary init container runs alone
// beside the sidecars started before it; the pod needs the larger of the two. One rule for the
// engine (a pod under review) and the cluster ledgers (pods bound to nodes).
#pragma once

#include <algorithm>
#include <cstdint>

#include "engine/pod/gpu_request.hpp"

namespace gpua::engine {

enum class ContainerRole { App, Sidecar, Init };

class PodRequestFold {
 public:
  // Init containers and sidecars must be added in spec order; app containers in any order.
  void add(ContainerRole role, int64_t amount) {
    switch (role) {
      case ContainerRole::App:
        sum_ = addUnits(sum_, amount);
        break;
      case ContainerRole::Sidecar:
        sum_ = addUnits(sum_, amount);
        sidecars_ = addUnits(sidecars_, amount);
        initPeak_ = std::max(initPeak_, sidecars_);
        break;
      case ContainerRole::Init:
        initPeak_ = std::max(initPeak_, addUnits(amount, sidecars_));
        break;
    }
  }
  int64_t total() const { return std::max(sum_, initPeak_); }

 private:
  int64_t sum_ = 0;       // app containers and sidecars
  int64_t sidecars_ = 0;  // sidecars started so far
  int64_t initPeak_ = 0;  // the most any init step needs
};

}  // namespace gpua::engine
