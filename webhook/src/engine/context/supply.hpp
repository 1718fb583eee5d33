// GPU supply and the queue as the engine sees them: what the cluster's nodes offer, what is taken,
// and which GPU pods wait. Built by the cluster watch client (or from `kubectl get nodes -o json`
// plus a pods snapshot for the CLI) and handed to the engine as an immutable snapshot beside the
// UsageSnapshot; the engine only reads it.
//
// Two stages, so the request path never walks nodes:
//   1. NodeInventory: the adapter fills `nodes` and `pending` from the API (inventory/'s supply
//      ledger, fed by cluster/) or files (cli/);
//   2. SupplySnapshot: summarizeSupply() (pure, engine/) folds an inventory into per-pool figures
//      for the current policy.
// A policy reload re-runs stage 2 on the same nodes.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "kube/label_selector.hpp"
#include "policy/policy_set.hpp"

namespace gpua::engine {

// Resource names compare with std::less<> so string_view look-ups need no copy.
using ResourceUnits = std::map<std::string, int64_t, std::less<>>;

// One node, reduced to what admission needs.
struct NodeSupply {
  std::string name;
  kube::Labels labels;
  std::vector<policy::Taint> taints;  // spec.taints
  bool ready = false;                 // condition Ready is True
  bool unschedulable = false;         // spec.unschedulable (cordoned)
  // status.allocatable of every GPU resource: nvidia.com/gpu, nvidia.com/mig-*,
  // nvidia.com/gpu.shared and any other name the policy uses. "0" entries are kept (after MIG is
  // enabled the kubelet keeps nvidia.com/gpu at 0).
  ResourceUnits allocatable;
  // Requests of the non-terminal pods bound to this node (spec.nodeName), same keys.
  ResourceUnits allocated;
  int64_t cpuMillis = 0;    // status.allocatable.cpu
  int64_t memoryBytes = 0;  // status.allocatable.memory
  // GPU devices of the node's ResourceSlices (DRA), by the resource spec.dra counts them as,
  // and those allocated to claims: addDraSupply(). A DeviceClass's extendedResourceName (KEP-5004)
  // adds its devices to `allocatable` too, since pods asking for that name are served by them.
  ResourceUnits draDevices;
  ResourceUnits draAllocated;
};

// GPU pods not yet bound, grouped by class and pool ("" when the pod's pool is not known).
struct PendingQueue {
  std::string className;
  std::string pool;
  int64_t pods = 0;
  double oldestWaitSeconds = 0;  // as of the snapshot's build time (the engine has no clock)
};

// The roomiest node for one resource: the most of CPU (or memory) per unit any node of the pool
// gives, whatever its state, with that node's figures for messages. Precomputed so the stranding
// check never walks nodes.
struct NodeShape {
  double perUnit = 0;  // amount / units; 0 = unknown
  int64_t amount = 0;  // the node's allocatable CPU millis or memory bytes
  int64_t units = 0;   // the node's allocatable units of the resource
};

// One GPU resource of a pool, with an entry for every resource any node of the pool lists.
// Two kinds of figures:
//   - now: over the usable nodes (Ready, not cordoned, every taint tolerated). They move with
//     node states and only ever produce warnings (the waiting hint) and metrics;
//   - structural: over every node of the pool, whatever its state (NotReady, cordoned, tainted
//     nodes are still what the pool is made of). The no-capacity verdict reads only these.
struct ResourceSupply {
  int64_t allocatable = 0;     // sum over usable nodes
  int64_t allocated = 0;       // sum over usable nodes
  int64_t maxPerNode = 0;      // largest allocatable of one usable node
  int64_t maxFreePerNode = 0;  // largest allocatable - allocated of one usable node
  int64_t nodes = 0;           // usable nodes advertising more than 0
  int64_t largestPerNode = 0;  // structural: largest allocatable of any node of the pool
  NodeShape cpu;               // structural: CPU millis per unit on the roomiest node
  NodeShape memory;            // structural: memory bytes per unit on the roomiest node
};

// DRA devices of one resource over the pool's usable nodes (for status and metrics).
struct DraResourceSupply {
  int64_t devices = 0;
  int64_t allocated = 0;
  int64_t nodes = 0;  // usable nodes with at least one
};

struct PoolSupply {
  int64_t nodesTotal = 0;
  int64_t nodesReady = 0;
  int64_t nodesNotReady = 0;
  int64_t nodesCordoned = 0;
  int64_t nodesTainted = 0;      // Ready, not cordoned, with a taint the pool does not tolerate
  int64_t nodesSchedulable = 0;  // Ready, not cordoned, no taint the pool does not tolerate
  // Nodes advertising more than 0 of no GPU resource at all, whatever their state: a device
  // plugin starting or restarting, a node the autoscaler just added. What they will offer is
  // unknown, so while there are any, the pool's shape is not known in full.
  int64_t nodesSilent = 0;
  std::map<std::string, ResourceSupply, std::less<>> resources;  // device plugins (and KEP-5004)
  std::map<std::string, DraResourceSupply, std::less<>> dra;     // DRA devices
  // Node shape: CPU and memory allocatable per GPU over every node of the pool (0 = unknown).
  double cpuMillisPerGpu = 0;
  double memoryBytesPerGpu = 0;
};

// Stage 1: the raw node inventory, as the adapter read it (nodes with what their bound pods
// take, and the queue), before any policy folded it into pools.
struct NodeInventory {
  std::vector<NodeSupply> nodes;
  std::vector<PendingQueue> pending;
};

// Stage 2: the pool supply summarized for one policy, with the inventory it was folded from.
struct SupplySnapshot : NodeInventory {
  // False when no node source is configured or nodes have not been listed yet: capacity checks
  // are then off (placement-conflict, which needs no nodes, stays on).
  bool available = false;
  std::string unavailableReason;

  // ---- filled by summarizeSupply() for one policy ----
  std::string policyRevision;                                 // the PolicySet it was folded for
  std::map<std::string, PoolSupply, std::less<>> pools;       // pool name -> supply
  std::vector<std::string> unpooledGpuNodes;                  // GPU nodes matching no pool
  std::map<std::string, std::size_t, std::less<>> nodeIndex;  // node name -> index in nodes

  const PoolSupply* pool(std::string_view name) const {
    const auto it = pools.find(name);
    return it == pools.end() ? nullptr : &it->second;
  }
  const NodeSupply* node(std::string_view name) const {
    const auto it = nodeIndex.find(name);
    return it == nodeIndex.end() ? nullptr : &nodes[it->second];
  }
};

// Folds nodes into per-pool figures for `policy`; a node in several pools counts in each.
// A node belongs to a pool when it satisfies every requirement of the pool's selection (a pool
// with no selection holds the nodes advertising its resources); it is usable for the pool when
// Ready, not cordoned, and every NoSchedule/NoExecute taint is tolerated by the pool's taints
// (the tolerations the engine adds). Structural figures (ResourceSupply::largestPerNode, the
// node shapes, nodesSilent) count every node of the pool whatever its state. The result is
// `available`; an adapter that has not listed nodes yet hands out an unavailable snapshot
// instead. Pure: the same inputs give the same snapshot.
SupplySnapshot summarizeSupply(NodeInventory inventory, const policy::PolicySet& policy);

// Where the server gets the current supply from (the cluster watch client, a file, or a fixed
// unavailable snapshot).
class SupplySource {
 public:
  virtual ~SupplySource() = default;
  virtual std::shared_ptr<const SupplySnapshot> currentSupply() const = 0;
};

}  // namespace gpua::engine
