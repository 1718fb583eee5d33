#include "engine/capacity_check.hpp"

#include <algorithm>
#include <array>
#include <cmath>

#include "engine/pod_demand.hpp"
#include "engine/text.hpp"

namespace gpua::engine {

namespace {

struct PoolView {
  const policy::Pool* pool;
  const PoolSupply* supply;  // null when the summary has no entry: no nodes

  const ResourceSupply* resource(std::string_view name) const {
    if (supply == nullptr) return nullptr;
    const auto it = supply->resources.find(name);
    return it == supply->resources.end() || it->second.nodes == 0 ? nullptr : &it->second;
  }
};

// The class's pools with their supply, looked up once. Classes name a few pools; a fixed array
// keeps the request path free of allocations (more pools than that spill to the heap).
class PoolViews {
 public:
  PoolViews(const std::vector<const policy::Pool*>& pools, const SupplySnapshot& supply) {
    for (const auto* p : pools) add({p, supply.pool(p->name)});
  }
  std::size_t size() const { return count_; }
  const PoolView& operator[](std::size_t i) const {
    return i < fixed_.size() ? fixed_[i] : spill_[i - fixed_.size()];
  }
  // The pools where some usable node has at least `demand` units of `resource`.
  bool fits(std::size_t i, std::string_view resource, int64_t demand) const {
    const auto* r = (*this)[i].resource(resource);
    return r != nullptr && r->maxPerNode >= demand;
  }

 private:
  void add(PoolView v) {
    if (count_ < fixed_.size()) {
      fixed_[count_] = v;
    } else {
      spill_.push_back(v);
    }
    ++count_;
  }
  std::array<PoolView, 4> fixed_{};
  std::vector<PoolView> spill_;
  std::size_t count_ = 0;
};

std::string head(const CapacityInput& in) {
  return in.pod.subject + " (class " + in.cls.name + ")";
}

std::string units(int64_t n, std::string_view resource) {
  return std::to_string(n) + " " + std::string(resource);
}

// "pool infer-a100 offers nvidia.com/mig-1g.10gb (7 per node), nvidia.com/mig-3g.40gb (2)"
std::string offers(const PoolView& p) {
  const std::string pool = "pool " + p.pool->name;
  const PoolSupply* s = p.supply;
  if (s == nullptr || s->nodesTotal == 0)
    return pool + " has no nodes (check that its nodeSelector matches the nodes' labels)";
  if (s->nodesSchedulable == 0)
    return pool + " has no Ready, schedulable node (" + std::to_string(s->nodesTotal) + " nodes, " +
           std::to_string(s->nodesNotReady) + " not ready, " + std::to_string(s->nodesCordoned) +
           " cordoned)";
  std::string list;
  for (const auto& [name, r] : s->resources) {
    if (r.nodes == 0 || r.maxPerNode <= 0) continue;
    list += (list.empty() ? "" : ", ") + name + " (" + std::to_string(r.maxPerNode) +
            (list.empty() ? " per node)" : ")");
  }
  return list.empty() ? pool + "'s nodes offer no GPU resource" : pool + " offers " + list;
}

std::string remedy(const CapacityInput& in, std::string_view resource) {
  if (in.cls.gpus.migProfile && resource == in.cls.resolvedResource)
    return "change the class's migProfile or the pool's MIG layout";
  if (resource.starts_with(kMigPrefix))
    return "ask for a MIG profile the pool offers, or change the pool's MIG layout";
  return "add nodes advertising " + std::string(resource) +
         " to the pool, or check their device plugin";
}

Violation noneOffers(const CapacityInput& in, const PoolViews& pools, std::string_view resource,
                     bool advisory) {
  std::vector<std::string> parts;
  for (std::size_t i = 0; i < pools.size(); ++i) parts.push_back(offers(pools[i]));
  return {std::string(kNoCapacityRule),
          head(in) + ": " + text::join(parts, "; ") + "; none offers " + std::string(resource) +
              ": " + remedy(in, resource),
          advisory};
}

Violation tooLarge(const CapacityInput& in, const PoolViews& pools, std::string_view resource,
                   int64_t demand, bool advisory) {
  int64_t largest = 0;
  std::string where;
  for (std::size_t i = 0; i < pools.size(); ++i)
    if (const auto* r = pools[i].resource(resource); r != nullptr && r->maxPerNode > largest) {
      largest = r->maxPerNode;
      where = pools[i].pool->name;
    }
  return {std::string(kNoCapacityRule),
          head(in) + " needs " + units(demand, resource) + " on one node, but the largest " +
              "Ready, schedulable node of pool " + where + " has " + std::to_string(largest) +
              ": ask for at most " + std::to_string(largest) + " per pod, or split the work " +
              "across pods",
          advisory};
}

// ---- gpu-stranding ----

struct Dimension {
  std::string_view name;  // "CPU" or "memory"
  int64_t podAmount;      // CPU millis or memory bytes
  NodeShape ResourceSupply::*shape;
};

std::string amount(const Dimension& d, double v) {
  if (d.name == "CPU") return text::number(v / 1000) + " CPUs";
  return text::number(v / (1024.0 * 1024 * 1024)) + " GiB of memory";
}

// The stranding finding for one pool and dimension, or empty when the pod fits its share.
std::string strands(const CapacityInput& in, const PoolView& p, const ResourceSupply& r,
                    std::string_view resource, int64_t demand, const Dimension& d, double factor) {
  const NodeShape& shape = r.*(d.shape);
  if (shape.perUnit <= 0 || demand <= 0) return {};
  const double podPerUnit = static_cast<double>(d.podAmount) / static_cast<double>(demand);
  const double allowed = factor * shape.perUnit;
  if (podPerUnit <= allowed) return {};
  const double left = std::max(0.0, static_cast<double>(shape.amount - d.podAmount));
  const int64_t usable = static_cast<int64_t>(std::floor(left / shape.perUnit));
  const int64_t stranded = std::max<int64_t>(0, shape.units - demand - usable);
  return head(in) + " asks for " + amount(d, static_cast<double>(d.podAmount)) + " with " +
         units(demand, resource) + ", but the roomiest node of pool " + p.pool->name + " has " +
         amount(d, static_cast<double>(shape.amount)) + " for " + units(shape.units, resource) +
         ", so " + std::to_string(stranded) + " of them would be left without " +
         std::string(d.name) + "; maxShareOfNodePerGpu " + text::number(factor) +
         " allows at most " + amount(d, allowed * static_cast<double>(demand)) +
         ": lower the request to that, or ask for more GPUs";
}

std::optional<double> factorOf(const CapacityInput& in, const policy::Pool& pool) {
  return in.cls.maxShareOfNodePerGpu ? in.cls.maxShareOfNodePerGpu : pool.maxShareOfNodePerGpu;
}

// Fires only when every pool that can hold the pod would be stranded by it.
void checkStranding(const CapacityInput& in, const PoolViews& pools, std::string_view resource,
                    int64_t demand, bool advisory, std::vector<Violation>& out) {
  std::optional<CpuMemoryDemand> pod;
  std::string first;
  for (std::size_t i = 0; i < pools.size(); ++i) {
    if (!pools.fits(i, resource, demand)) continue;
    const PoolView& p = pools[i];
    const auto factor = factorOf(in, *p.pool);
    if (!factor) return;
    if (!pod) pod = perNodeCpuMemory(in.pod, in.gpu);
    const ResourceSupply& r = *p.resource(resource);
    std::string finding =
        strands(in, p, r, resource, demand, {"CPU", pod->cpuMillis, &ResourceSupply::cpu}, *factor);
    if (finding.empty())
      finding = strands(in, p, r, resource, demand,
                        {"memory", pod->memoryBytes, &ResourceSupply::memory}, *factor);
    if (finding.empty()) return;
    if (first.empty()) first = std::move(finding);
  }
  if (!first.empty()) out.push_back({std::string(kGpuStrandingRule), std::move(first), advisory});
}

// ---- waiting hint ----

std::string duration(double seconds) {
  const auto s = static_cast<int64_t>(seconds);
  if (s < 60) return std::to_string(s) + "s";
  if (s < 3600) return std::to_string(s / 60) + "m";
  return std::to_string(s / 3600) + "h" +
         (s % 3600 >= 60 ? std::to_string(s % 3600 / 60) + "m" : "");
}

std::string queue(const CapacityInput& in, const policy::Pool& pool) {
  int64_t pods = 0;
  double oldest = 0;
  for (const auto& q : in.supply.pending)
    if (q.className == in.cls.name && (q.pool == pool.name || q.pool.empty())) {
      pods += q.pods;
      oldest = std::max(oldest, q.oldestWaitSeconds);
    }
  if (pods == 0) return "no other pods of class " + in.cls.name + " are waiting";
  return std::to_string(pods) + (pods == 1 ? " pod" : " pods") + " of class " + in.cls.name +
         (pods == 1 ? " is" : " are") + " waiting, the oldest for " + duration(oldest);
}

void waitingHint(const CapacityInput& in, const PoolViews& pools, std::string_view resource,
                 int64_t demand, std::vector<std::string>& out) {
  const PoolView* first = nullptr;
  for (std::size_t i = 0; i < pools.size(); ++i) {
    if (!pools.fits(i, resource, demand)) continue;
    if (pools[i].resource(resource)->maxFreePerNode >= demand) return;  // room somewhere now
    if (first == nullptr) first = &pools[i];
  }
  if (first == nullptr) return;
  const PoolView& p = *first;
  const ResourceSupply& r = *p.resource(resource);
  const int64_t free = std::max<int64_t>(0, r.allocatable - r.allocated);
  std::string hint = "pool " + p.pool->name + ": " + std::to_string(free) + " of " +
                     units(r.allocatable, resource) + " free";
  if (free > 0)
    hint += ", at most " + std::to_string(std::max<int64_t>(0, r.maxFreePerNode)) +
            " on one node (the pod needs " + std::to_string(demand) + ")";
  out.push_back(hint + "; " + queue(in, *p.pool));
}

}  // namespace

policy::CapacityCheck capacityCheckOf(const policy::WorkloadClass& cls,
                                      const policy::PolicySet& policy) {
  return cls.capacityCheck.value_or(policy.capacityCheck);
}

void checkCapacity(const CapacityInput& in, std::vector<Violation>& violations,
                   std::vector<std::string>& warnings) {
  const auto check = capacityCheckOf(in.cls, in.policy);
  if (check == policy::CapacityCheck::Off || !in.supply.available ||
      in.supply.policyRevision != in.policy.revision || in.pools.empty())
    return;
  const bool advisory = check == policy::CapacityCheck::Warn;
  const PoolViews pools(in.pools, in.supply);
  const GpuDemand demands = perNodeGpuDemand(in.gpu, in.rewriteTo);
  for (std::size_t d = 0; d < demands.size(); ++d) {
    const auto [resource, demand] = demands[d];
    bool offered = false, fits = false;
    for (std::size_t i = 0; i < pools.size(); ++i) {
      offered = offered || pools[i].resource(resource) != nullptr;
      fits = fits || pools.fits(i, resource, demand);
    }
    if (!offered) {
      violations.push_back(noneOffers(in, pools, resource, advisory));
    } else if (!fits) {
      violations.push_back(tooLarge(in, pools, resource, demand, advisory));
    } else {
      checkStranding(in, pools, resource, demand, advisory, violations);
      waitingHint(in, pools, resource, demand, warnings);
    }
  }
}

}  // namespace gpua::engine
