#include "engine/validate/capacity_check.hpp"

#include <algorithm>
#include <array>
#include <cmath>

#include "engine/core/text.hpp"
#include "engine/pod/pod_demand.hpp"

namespace gpua::engine {

namespace {

// What the nodes of a pool are, whatever their state, says about a pod needing `demand` units
// of a resource on one node:
//   Holds:   some node of the pool has that many (Ready or not, cordoned or not);
//   Never:   every node advertises some GPU resource and none has that many: the pool's shape
//            (its MIG layout, its GPUs per node) cannot hold the pod;
//   Unknown: the pool has no nodes (scaled to zero), or some advertise no GPU at all (a device
//            plugin starting or restarting): they may hold it once they are back.
enum class Shape { Holds, Never, Unknown };

struct PoolView {
  const policy::Pool* pool;
  const PoolSupply* supply;  // null when the summary has no entry: no nodes

  const ResourceSupply* entry(std::string_view name) const {
    if (supply == nullptr) return nullptr;
    const auto it = supply->resources.find(name);
    return it == supply->resources.end() ? nullptr : &it->second;
  }
  // Offered now: some usable node advertises more than 0.
  const ResourceSupply* now(std::string_view name) const {
    const auto* r = entry(name);
    return r != nullptr && r->nodes > 0 ? r : nullptr;
  }
  int64_t largest(std::string_view name) const {
    const auto* r = entry(name);
    return r == nullptr ? 0 : r->largestPerNode;
  }
  int64_t nodes() const { return supply == nullptr ? 0 : supply->nodesTotal; }
  Shape shape(std::string_view name, int64_t demand) const {
    if (nodes() == 0) return Shape::Unknown;
    const int64_t most = largest(name);
    if (most > 0 && most >= demand) return Shape::Holds;
    return supply->nodesSilent > 0 ? Shape::Unknown : Shape::Never;
  }
};

// The class's pools with their supply, looked up once. Classes name a few pools; a fixed array
// keeps the request path free of allocations (more pools than that spill to the heap).
class PoolViews {
 public:
  PoolViews(const PoolList& pools, const SupplySnapshot& supply) {
    for (const auto* p : pools) add({p, supply.pool(p->name)});
  }
  std::size_t size() const { return count_; }
  const PoolView& operator[](std::size_t i) const {
    return i < fixed_.size() ? fixed_[i] : spill_[i - fixed_.size()];
  }
  // Some usable node of pool i has at least `demand` units of `resource` now.
  bool fitsNow(std::size_t i, std::string_view resource, int64_t demand) const {
    const auto* r = (*this)[i].now(resource);
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
  std::string out = in.pod.subject;
  return out.append(" (class ").append(in.cls.name).append(")");
}

std::string units(int64_t n, std::string_view resource) {
  return std::to_string(n).append(" ").append(resource);
}

// "pool infer-a100 offers nvidia.com/mig-1g.10gb (7 per node), nvidia.com/mig-3g.40gb (2)":
// what the pool's nodes advertise, whatever their state.
std::string offers(const PoolView& p) {
  std::string out = "pool ";
  out.append(p.pool->name);
  if (p.nodes() == 0) return out.append(" has no nodes");
  std::string list;
  for (const auto& [name, r] : p.supply->resources) {
    if (r.largestPerNode <= 0) continue;
    const bool first = list.empty();
    if (!first) list.append(", ");
    list.append(name).append(" (").append(std::to_string(r.largestPerNode));
    list.append(first ? " per node)" : ")");
  }
  if (list.empty()) return out.append("'s nodes offer no GPU resource");
  return out.append(" offers ").append(list);
}

std::string remedy(const CapacityInput& in, std::string_view resource) {
  if (in.cls.gpus.migProfile && resource == in.cls.resolvedResource)
    return "change the class's migProfile or the pool's MIG layout";
  if (resource.starts_with(kMigPrefix))
    return "ask for a MIG profile the pool offers, or change the pool's MIG layout";
  std::string out = "add nodes advertising ";
  return out.append(resource).append(" to the pool, or check their device plugin");
}

Violation noneOffers(const CapacityInput& in, const PoolViews& pools, std::string_view resource,
                     bool advisory) {
  std::vector<std::string> parts;
  for (std::size_t i = 0; i < pools.size(); ++i) parts.push_back(offers(pools[i]));
  std::string message = head(in);
  message.append(": ").append(text::join(parts, "; ")).append("; none offers ").append(resource);
  // With DRA in the policy, both sources were looked at: say so, since a DRA node serves an
  // extended resource only through a DeviceClass's extendedResourceName.
  if (in.policy.dra.declared)
    message.append(" (no device plugin advertises it and no DRA DeviceClass maps it)");
  message.append(": ").append(remedy(in, resource));
  return {std::string(kNoCapacityRule), std::move(message), advisory};
}

Violation tooLarge(const CapacityInput& in, const PoolViews& pools, std::string_view resource,
                   int64_t demand, bool advisory) {
  int64_t largest = 0;
  std::string_view where;
  for (std::size_t i = 0; i < pools.size(); ++i)
    if (const int64_t n = pools[i].largest(resource); n > largest) {
      largest = n;
      where = pools[i].pool->name;
    }
  std::string message = head(in);
  message.append(" needs ").append(units(demand, resource));
  message.append(" on one node, but the largest node of pool ").append(where).append(" has ");
  message.append(std::to_string(largest)).append(": ask for at most ");
  message.append(std::to_string(largest)).append(" per pod, or split the work across pods");
  return {std::string(kNoCapacityRule), std::move(message), advisory};
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

// Fires only when every pool that can hold the pod would be stranded by it. The node shape is
// the pool's whatever the nodes' state; a pool whose shape is unknown (no nodes, or nodes
// advertising nothing now) might take the pod without stranding, so nothing is said.
void checkStranding(const CapacityInput& in, const PoolViews& pools, std::string_view resource,
                    int64_t demand, bool advisory, Violations& out) {
  std::optional<CpuMemoryDemand> pod;
  std::string first;
  for (std::size_t i = 0; i < pools.size(); ++i) {
    const PoolView& p = pools[i];
    const Shape shape = p.shape(resource, demand);
    if (shape == Shape::Never) continue;
    if (shape == Shape::Unknown) return;
    const auto factor = factorOf(in, *p.pool);
    if (!factor) return;
    if (!pod) pod = perNodeCpuMemory(in.pod, in.gpu);
    const ResourceSupply& r = *p.entry(resource);
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

// "2 nodes: 1 not ready, 1 cordoned"
std::string nodeStates(const PoolSupply& s) {
  std::string out = std::to_string(s.nodesTotal);
  out.append(s.nodesTotal == 1 ? " node: " : " nodes: ");
  std::vector<std::string> states;
  auto add = [&](int64_t n, std::string_view what) {
    if (n > 0) states.push_back(std::to_string(n).append(" ").append(what));
  };
  add(s.nodesSchedulable, "Ready and schedulable");
  add(s.nodesNotReady, "not ready");
  add(s.nodesCordoned, "cordoned");
  add(s.nodesTainted, "with a taint the pool does not tolerate");
  return out.append(text::join(states));
}

// The pool can hold the pod, but no usable node offers enough now (not ready, cordoned, tainted,
// or a device plugin restarting on the usable ones): admitted, and the pod waits.
std::string notNow(const CapacityInput& in, const PoolView& p, std::string_view resource,
                   int64_t demand) {
  const PoolSupply& s = *p.supply;
  std::string out = "admitted: ";
  if (s.nodesSchedulable == 0) {
    out.append("pool ").append(p.pool->name).append(" has no Ready, schedulable node now (");
    out.append(nodeStates(s)).append("); the pod will wait until one is");
  } else {
    const auto* r = p.entry(resource);
    out.append("no Ready, schedulable node of pool ").append(p.pool->name).append(" advertises ");
    out.append(units(demand, resource)).append(" now (the most is ");
    out.append(std::to_string(r == nullptr ? 0 : std::max<int64_t>(0, r->maxPerNode)));
    out.append("; ").append(nodeStates(s)).append("); the pod will wait until one does");
  }
  return out.append("; ").append(queue(in, *p.pool));
}

// No pool is known to hold the pod and some pool's shape is unknown: admitted, and the pod
// waits. A pending pod is what Cluster Autoscaler and Karpenter scale a pool up for.
std::string shapeUnknown(const CapacityInput& in, const PoolViews& pools, std::string_view resource,
                         int64_t demand) {
  const PoolView* p = nullptr;
  for (std::size_t i = 0; i < pools.size() && p == nullptr; ++i)
    if (pools[i].shape(resource, demand) == Shape::Unknown) p = &pools[i];
  std::string out = "admitted: ";
  const std::string& name = p->pool->name;
  if (p->nodes() == 0) {
    out.append("pool ").append(name).append(" has no nodes now; the pod will wait until one ");
    out.append("joins (autoscalers add nodes for pending pods; if the pool is not scaled to ");
    out.append("zero, check that its nodeSelector matches the nodes' labels)");
  } else {
    const PoolSupply& s = *p->supply;
    if (s.nodesSilent == s.nodesTotal) {
      out.append("no node of pool ").append(name).append(" advertises a GPU now (");
      out.append(nodeStates(s)).append("; a device plugin starting or restarting?)");
    } else {
      out.append(std::to_string(s.nodesSilent)).append(" of the ");
      out.append(std::to_string(s.nodesTotal)).append(" nodes of pool ").append(name);
      out.append(s.nodesSilent == 1 ? " advertises" : " advertise").append(" no GPU now (a ");
      out.append("device plugin starting or restarting?) and the others have at most ");
      out.append(units(p->largest(resource), resource)).append(" on one node");
    }
    out.append("; the pod will wait until one advertises ").append(units(demand, resource));
  }
  return out.append("; ").append(queue(in, *p->pool));
}

void waitingHint(const CapacityInput& in, const PoolViews& pools, std::string_view resource,
                 int64_t demand, TextList& out) {
  const PoolView* full = nullptr;
  const PoolView* holds = nullptr;
  for (std::size_t i = 0; i < pools.size(); ++i) {
    if (pools[i].shape(resource, demand) != Shape::Holds) continue;
    if (holds == nullptr) holds = &pools[i];
    if (!pools.fitsNow(i, resource, demand)) continue;
    if (pools[i].now(resource)->maxFreePerNode >= demand) return;  // room somewhere now
    if (full == nullptr) full = &pools[i];
  }
  if (full == nullptr) {
    if (holds != nullptr) out.push_back(notNow(in, *holds, resource, demand));
    return;
  }
  const PoolView& p = *full;
  const ResourceSupply& r = *p.now(resource);
  const int64_t free = std::max<int64_t>(0, r.allocatable - r.allocated);
  std::string hint = "pool ";
  hint.append(p.pool->name).append(": ").append(std::to_string(free)).append(" of ");
  hint.append(units(r.allocatable, resource)).append(" free");
  if (free > 0) {
    hint.append(", at most ").append(std::to_string(std::max<int64_t>(0, r.maxFreePerNode)));
    hint.append(" on one node (the pod needs ").append(std::to_string(demand)).append(")");
  }
  out.push_back(hint.append("; ").append(queue(in, *p.pool)));
}

}  // namespace

policy::CapacityCheck capacityCheckOf(const policy::WorkloadClass& cls,
                                      const policy::PolicySet& policy) {
  return cls.capacityCheck.value_or(policy.capacityCheck);
}

void checkCapacity(const CapacityInput& in, Violations& violations, TextList& warnings) {
  const auto check = capacityCheckOf(in.cls, in.policy);
  if (check == policy::CapacityCheck::Off || !in.supply.available ||
      in.supply.policyRevision != in.policy.revision || in.pools.empty())
    return;
  const bool advisory = check == policy::CapacityCheck::Warn;
  const PoolViews pools(in.pools, in.supply);
  const GpuDemand demands = perNodeGpuDemand(in.gpu, in.rewriteTo);
  for (std::size_t d = 0; d < demands.size(); ++d) {
    const auto [resource, demand] = demands[d];
    // Structural only: the verdict reads what the pools' nodes are, never their state now.
    bool holds = false, unknown = false, offered = false;
    for (std::size_t i = 0; i < pools.size(); ++i) {
      const Shape shape = pools[i].shape(resource, demand);
      holds = holds || shape == Shape::Holds;
      unknown = unknown || shape == Shape::Unknown;
      offered = offered || pools[i].largest(resource) > 0;
    }
    if (holds) {
      checkStranding(in, pools, resource, demand, advisory, violations);
      waitingHint(in, pools, resource, demand, warnings);
    } else if (unknown) {
      warnings.push_back(shapeUnknown(in, pools, resource, demand));
    } else if (!offered) {
      violations.push_back(noneOffers(in, pools, resource, advisory));
    } else {
      violations.push_back(tooLarge(in, pools, resource, demand, advisory));
    }
  }
}

}  // namespace gpua::engine
