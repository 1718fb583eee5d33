// Nodes and the GPU pods around them: what each node advertises, what the pods bound to it
// take (spec.nodeName), and which GPU pods wait (no nodeName). Fed by the watch client (node
// and pod lists and events) or, for the CLI, by files in one go (supplyFromLists); read as the
// first stage of supply, an engine::NodeInventory (nodes + pending). Pure: no clock, `now` is
// passed in.
//
// It also notes, once per pod, what the queue metrics observe: a GPU pod's wait from creation to
// PodScheduled=True, and a GPU pod that failed at start for a device reason.
//
// Not thread-safe: one owner applies lists and events; readers get copies.
#pragma once

#include <rapidjson/document.h>

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "engine/context/supply.hpp"
#include "inventory/ledger.hpp"
#include "inventory/list_sink.hpp"
#include "inventory/node_decode.hpp"
#include "inventory/staged_list.hpp"
#include "inventory/string_table.hpp"
#include "policy/policy_set.hpp"

namespace gpua::inventory {

// A GPU pod bound by the scheduler: seconds from creation to PodScheduled=True.
struct ScheduleWait {
  std::string className;  // "" = unclassified
  double seconds = 0;
  double boundAtUnix = 0;  // the condition's lastTransitionTime
};

// A GPU pod that failed at start: reason UnexpectedAdmissionError or OutOf<resource>.
struct StartFailure {
  std::string className;
  std::string reason;  // bounded: OutOf<resource> only for resources the filter keeps, cpu,
                       // memory, pods; other OutOf* read "OutOfOther"
};

class SupplyLedger {
 public:
  explicit SupplyLedger(std::shared_ptr<const policy::PolicySet> policy);

  // A new policy. Returns true when the resources kept from nodes changed: the caller then
  // re-lists nodes. Pods' classes were computed under the old policy: the caller re-lists them.
  bool setPolicy(std::shared_ptr<const policy::PolicySet> policy);
  const NodeResourceFilter& filter() const { return filter_; }

  // Paginated lists stage and swap on commit, as in Ledger.
  // Replaces every node at once (the CLI's nodes file).
  void setNodes(std::vector<engine::NodeSupply> nodes);
  void beginNodeList();
  void addNodePage(const rapidjson::Value& items);
  void commitNodeList();
  void applyNodeEvent(EventType type, const rapidjson::Value& node);

  // Items whose kind is set and is not Pod (a Namespace in a mixed List) are skipped.
  void beginPodList();
  void addPodPage(const rapidjson::Value& items);
  void commitPodList();
  void applyPodEvent(EventType type, const rapidjson::Value& pod);

  // The two resources above as sinks for the list/watch loop.
  ListSink nodeSink() {
    return sinkOf(*this, &SupplyLedger::beginNodeList, &SupplyLedger::addNodePage,
                  &SupplyLedger::commitNodeList, &SupplyLedger::applyNodeEvent);
  }
  ListSink podSink() {
    return sinkOf(*this, &SupplyLedger::beginPodList, &SupplyLedger::addPodPage,
                  &SupplyLedger::commitPodList, &SupplyLedger::applyPodEvent);
  }

  // Stage 1 of a SupplySnapshot: nodes (by name) with allocated filled in.
  std::vector<engine::NodeSupply> nodes() const;
  // Pending GPU pods by class and pool (sorted), oldest wait as of `nowUnix`.
  std::vector<engine::PendingQueue> pending(double nowUnix) const;

  // What happened since the last call (each pod at most once in its lifetime in the ledger).
  std::vector<ScheduleWait> takeScheduleWaits();
  std::vector<StartFailure> takeStartFailures();

  std::size_t nodeCount() const { return nodes_.live().size(); }
  std::size_t boundPodCount() const { return pods_.live().bound.size(); }
  std::size_t pendingPodCount() const { return pods_.live().pending.size(); }

 private:
  struct Unit {
    uint32_t resource;
    int64_t units;
  };
  struct Bound {
    uint32_t node;
    std::vector<Unit> units;
  };
  struct Pending {
    uint32_t cls;
    uint32_t pool;
    double createdUnix;
  };
  // The GPU pods a pod list replaces together.
  struct Pods {
    std::unordered_map<std::string, Bound> bound;      // by pod key
    std::unordered_map<std::string, Pending> pending;  // by pod key
    void clear() {
      bound.clear();
      pending.clear();
    }
  };
  struct PodState {  // what one pod event decided
    std::string key;
    std::optional<Bound> bound;
    std::optional<Pending> pending;
  };

  PodState stateOf(const rapidjson::Value& pod);
  void observe(const rapidjson::Value& pod, const std::string& key, std::string_view cls);
  void addAllocated(const Bound& b, int sign);
  void removePod(const std::string& key);
  void insertPod(PodState&& s);
  void rebuildAllocated();

  std::shared_ptr<const policy::PolicySet> policy_;
  NodeResourceFilter filter_;
  StringTable strings_;  // interned node, class, pool and resource names
  StagedList<std::map<std::string, engine::NodeSupply, std::less<>>> nodes_;
  StagedList<Pods> pods_;
  // node id -> resource id -> units of the pods bound to it (nodes may be unknown yet).
  std::unordered_map<uint32_t, std::unordered_map<uint32_t, int64_t>> allocated_;
  // Pods already observed, so relists and MODIFIED events never count them twice.
  std::unordered_set<std::string> observedWait_, observedFailure_;
  std::unordered_set<std::string> listedKeys_;  // every pod of the list being staged
  std::vector<ScheduleWait> waits_;
  std::vector<StartFailure> failures_;
};

// The CLI's file mode: nodes from loadNodesFile(), pods from `kubectl get pods -A -o json`
// (a List, a bare array or one Pod; Namespace items are skipped), as the raw inventory: the
// per-pool stage (engine::summarizeSupply) is left to the caller. `waits`, when given, gets the
// schedule waits of the listed pods (for `status`).
engine::NodeInventory supplyFromLists(std::vector<engine::NodeSupply> nodes,
                                      const rapidjson::Value& pods, const policy::PolicySet& policy,
                                      double nowUnix, std::vector<ScheduleWait>* waits = nullptr);

}  // namespace gpua::inventory
