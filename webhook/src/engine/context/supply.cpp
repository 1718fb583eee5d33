#include "engine/context/supply.hpp"

#include <algorithm>
#include <charconv>

#include "engine/core/toleration.hpp"
#include "engine/pod/pod_placement.hpp"

namespace gpua::engine {

namespace {

// The extended resources a pool's GPUs are advertised under.
std::vector<std::string> poolResources(const policy::Pool& pool) {
  if (pool.sharing != policy::Sharing::Mig) return {pool.resource};
  std::vector<std::string> out;
  for (const auto& profile : pool.migProfiles) out.push_back("nvidia.com/mig-" + profile);
  return out;
}

int64_t units(const ResourceUnits& map, std::string_view resource) {
  const auto it = map.find(resource);
  return it == map.end() ? 0 : it->second;
}

bool advertisesAny(const NodeSupply& node, const std::vector<std::string>& resources) {
  for (const auto& r : resources)
    if (units(node.allocatable, r) > 0) return true;
  return false;
}

// A node belongs to a pool when it satisfies the pool's selection; a pool that selects nothing
// by labels holds the nodes advertising its resources.
bool inPool(const NodeSupply& node, const std::vector<NodeRequirement>& selection,
            const std::vector<std::string>& resources) {
  if (selection.empty()) return advertisesAny(node, resources);
  for (const auto& r : selection)
    if (!satisfiedBy(r, node.labels, node.name)) return false;
  return true;
}

// NoSchedule and NoExecute keep new pods off unless tolerated; PreferNoSchedule does not.
bool poolTolerates(const policy::Pool& pool, const policy::Taint& taint) {
  if (taint.effect != "NoSchedule" && taint.effect != "NoExecute") return true;
  for (const auto& t : pool.taints)
    if (toleratesTaint(tolerationFor(t), taint)) return true;
  return false;
}

bool tolerated(const NodeSupply& node, const policy::Pool& pool) {
  for (const auto& taint : node.taints)
    if (!poolTolerates(pool, taint)) return false;
  return true;
}

// No GPU resource above 0: the device plugin has not (re)registered, or the node is new.
bool silent(const NodeSupply& node) {
  for (const auto& [name, n] : node.allocatable)
    if (n > 0) return false;
  return true;
}

// Whole GPUs of a node: GPU Feature Discovery's nvidia.com/gpu.count, else what the pool's
// resource says (a shared unit is 1/replicas of a GPU); 0 when unknown (MIG without the label).
double gpusOf(const NodeSupply& node, const policy::Pool& pool) {
  if (const auto it = node.labels.find("nvidia.com/gpu.count"); it != node.labels.end()) {
    int64_t n = 0;
    const auto& s = it->second;
    const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), n);
    if (ec == std::errc() && end == s.data() + s.size() && n > 0) return static_cast<double>(n);
  }
  if (pool.sharing == policy::Sharing::Mig) return 0;
  const int64_t n = units(node.allocatable, pool.resource);
  return static_cast<double>(n) / std::max(1, pool.replicas);
}

void addShape(NodeShape& shape, int64_t amount, int64_t unitsOnNode) {
  if (amount <= 0 || unitsOnNode <= 0) return;
  const double perUnit = static_cast<double>(amount) / static_cast<double>(unitsOnNode);
  if (perUnit > shape.perUnit) shape = {perUnit, amount, unitsOnNode};
}

// Every node of the pool adds to the structural figures; only usable nodes to what is
// offered now.
void addNode(PoolSupply& pool, const NodeSupply& node, bool usable) {
  for (const auto& [name, allocatable] : node.allocatable) {
    auto& r = pool.resources[name];
    r.largestPerNode = std::max(r.largestPerNode, allocatable);
    addShape(r.cpu, node.cpuMillis, allocatable);
    addShape(r.memory, node.memoryBytes, allocatable);
    if (!usable) continue;
    const int64_t allocated = units(node.allocated, name);
    r.allocatable += allocatable;
    r.allocated += allocated;
    r.maxPerNode = std::max(r.maxPerNode, allocatable);
    r.maxFreePerNode = std::max(r.maxFreePerNode, allocatable - allocated);
    if (allocatable > 0) ++r.nodes;
  }
  if (!usable) return;
  for (const auto& [name, devices] : node.draDevices) {
    auto& d = pool.dra[name];
    d.devices += devices;
    d.allocated += units(node.draAllocated, name);
    if (devices > 0) ++d.nodes;
  }
}

PoolSupply summarizePool(const policy::Pool& pool, const std::vector<NodeSupply>& nodes,
                         std::vector<bool>& pooled) {
  const auto selection = poolRequirements(pool);
  const auto resources = poolResources(pool);
  PoolSupply out;
  double cpu = 0, memory = 0, gpus = 0;
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    const NodeSupply& node = nodes[i];
    if (!inPool(node, selection, resources)) continue;
    pooled[i] = true;
    ++out.nodesTotal;
    if (node.ready) ++out.nodesReady;
    if (node.unschedulable) ++out.nodesCordoned;
    if (silent(node)) ++out.nodesSilent;
    const bool untainted = tolerated(node, pool);
    if (node.ready && !node.unschedulable && !untainted) ++out.nodesTainted;
    const bool usable = node.ready && !node.unschedulable && untainted;
    if (usable) ++out.nodesSchedulable;
    addNode(out, node, usable);
    if (const double g = gpusOf(node, pool); g > 0) {
      gpus += g;
      cpu += static_cast<double>(node.cpuMillis);
      memory += static_cast<double>(node.memoryBytes);
    }
  }
  out.nodesNotReady = out.nodesTotal - out.nodesReady;
  if (gpus > 0) {
    out.cpuMillisPerGpu = cpu / gpus;
    out.memoryBytesPerGpu = memory / gpus;
  }
  return out;
}

// Advertises a GPU: any nvidia.com/gpu*, nvidia.com/mig-* or a resource the policy uses.
bool isGpuNode(const NodeSupply& node, const policy::PolicySet& policy) {
  for (const auto& [name, n] : node.allocatable) {
    if (n <= 0) continue;
    if (name.starts_with("nvidia.com/gpu") || name.starts_with("nvidia.com/mig-")) return true;
    for (const auto& c : policy.classes)
      if (c.resolvedResource == name) return true;
    for (const auto& p : policy.pools)
      if (p.resource == name) return true;
  }
  return false;
}

}  // namespace

SupplySnapshot summarizeSupply(NodeInventory inventory, const policy::PolicySet& policy) {
  auto& nodes = inventory.nodes;
  SupplySnapshot out;
  out.available = true;
  out.policyRevision = policy.revision;
  std::vector<bool> pooled(nodes.size(), false);
  for (const auto& pool : policy.pools) out.pools[pool.name] = summarizePool(pool, nodes, pooled);
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    out.nodeIndex.emplace(nodes[i].name, i);
    if (!pooled[i] && isGpuNode(nodes[i], policy)) out.unpooledGpuNodes.push_back(nodes[i].name);
  }
  static_cast<NodeInventory&>(out) = std::move(inventory);
  return out;
}

}  // namespace gpua::engine
