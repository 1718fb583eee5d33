// The GPU resources each container asks for, read in place from the pod. "GPU" means
// nvidia.com/gpu, nvidia.com/mig-*, or a pool's own resource name (nvidia.com/gpu.shared...);
// a quantity of 0 is no GPU. DRA resource claims count as a GPU request too.
#pragma once

#include <rapidjson/document.h>
#include <boost/container/small_vector.hpp>

#include <array>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/core/decision.hpp"
#include "engine/pod/claim_demand.hpp"
#include "engine/pod/pod_view.hpp"
#include "policy/policy_set.hpp"

namespace gpua::engine {

inline constexpr std::string_view kWholeGpu = "nvidia.com/gpu";
inline constexpr std::string_view kMigPrefix = "nvidia.com/mig-";

// Saturating sum: hostile pods with huge quantities must not overflow (UB) the counters.
inline int64_t addUnits(int64_t a, int64_t b) {
  constexpr int64_t kCap = int64_t{1} << 60;
  return a > kCap - b ? kCap : a + b;
}

struct GpuEntry {
  std::string_view resource;
  const rapidjson::Value* request = nullptr;  // raw quantity, null when absent
  const rapidjson::Value* limit = nullptr;
  std::optional<int64_t> requestUnits;  // parsed whole value; nullopt when absent or invalid
  std::optional<int64_t> limitUnits;
  bool invalid = false;  // a quantity that is not a whole number

  // Limits win; requests stand in when limits are absent (Kubernetes defaults them).
  int64_t units() const {
    if (limit != nullptr) return limitUnits.value_or(0);
    return requestUnits.value_or(0);
  }
  bool wantsGpu() const {
    return invalid || requestUnits.value_or(0) > 0 || limitUnits.value_or(0) > 0;
  }
};

// A container asks for a GPU resource or two, and a pod has a few containers: both lists are
// kept in place, so reading a typical pod allocates nothing (longer lists spill to the heap).
using GpuEntries = boost::container::small_vector<GpuEntry, 2>;

struct ContainerGpu {
  const rapidjson::Value* container = nullptr;  // always an object
  std::string_view name;
  bool init = false;
  rapidjson::SizeType index = 0;                // position in containers / initContainers
  const rapidjson::Value* resources = nullptr;  // objects or null
  const rapidjson::Value* requests = nullptr;
  const rapidjson::Value* limits = nullptr;
  GpuEntries gpus;
  // resources.claims non-empty (DRA); with spec.dra, only claims that hold GPUs or are unknown
  bool hasClaims = false;

  int64_t units() const {
    int64_t total = 0;
    for (const auto& g : gpus) total = addUnits(total, g.units());
    return total;
  }
  bool wantsGpu() const {
    if (hasClaims) return true;
    for (const auto& g : gpus)
      if (g.wantsGpu()) return true;
    return false;
  }
};

using ContainerGpus = boost::container::small_vector<ContainerGpu, 4>;

struct PodGpu {
  ContainerGpus containers;  // app containers first, then init containers
  bool hasGpu = false;
  bool hasResourceClaims = false;  // spec.resourceClaims non-empty
  bool requestsMig = false;        // some container asks for an nvidia.com/mig-* resource
  // The claims resolved under spec.dra (engine/classify/claim_resolution.hpp); empty without.
  ClaimDemand claims;
};

bool isGpuResource(std::string_view resource, const policy::PolicySet& policy);

// Reads the pod's containers. When `violations` is given, invalid quantities and
// requests != limits are reported there (rules invalid-gpu-quantity, requests-limits-mismatch).
PodGpu analyzeGpu(const PodView& pod, const policy::PolicySet& policy, Violations* violations);

// GPU units per resource name, in name order: what effectiveUnits returns. A pod asks for a
// few resources at most, so they are kept in place (no node per resource, as a map would
// allocate), spilling to the heap past kInPlace. The names are views into the pod, the policy or
// the PodGpu the units were counted from, which must outlive this.
class GpuUnits {
 public:
  struct Entry {
    std::string_view first;  // the resource (pair-like: `for (auto& [resource, n] : units)`)
    int64_t second = 0;      // its units
  };
  static constexpr std::size_t kInPlace = 4;

  // The entry of `resource`, added with 0 units (in name order) when absent.
  int64_t& operator[](std::string_view resource);
  const Entry* find(std::string_view resource) const;

  std::size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  const Entry* begin() const { return data(); }
  const Entry* end() const { return data() + size_; }

 private:
  const Entry* data() const { return size_ <= kInPlace ? inPlace_.data() : spilled_.data(); }

  std::array<Entry, kInPlace> inPlace_{};
  std::vector<Entry> spilled_;  // all entries once there are more than kInPlace
  std::size_t size_ = 0;
};

// Effective units per resource: max(sum over app containers, max over init containers), plus
// the units of the pod's GPU claims (claims are never rewritten).
// When `rewriteTo` is non-empty, nvidia.com/gpu counts as that resource.
GpuUnits effectiveUnits(const PodGpu& gpu, std::string_view rewriteTo);

// "container \"x\"" or "init container \"x\"" for messages.
std::string containerLabel(const ContainerGpu& c);
// "spec.containers[2]" or "spec.initContainers[0]" (with the template's prefix), for fixes.
std::string containerField(const PodView& pod, const ContainerGpu& c);

}  // namespace gpua::engine
