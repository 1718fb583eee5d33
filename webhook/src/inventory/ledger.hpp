// The usage ledger: which pods hold or wait for GPUs, per namespace and class, plus namespace
// labels. Fed by the watch client (or a pods.json file), read as immutable UsageSnapshots.
//
// Not thread-safe: one owner applies lists and events; readers get snapshots.
#pragma once

#include <rapidjson/document.h>

#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "engine/context/usage.hpp"
#include "inventory/event_type.hpp"
#include "inventory/list_sink.hpp"
#include "inventory/staged_list.hpp"
#include "inventory/string_table.hpp"
#include "policy/policy_set.hpp"

namespace gpua::inventory {

// Seconds on a monotonic clock; injected so GE-seconds are deterministic in tests.
using SecondsClock = std::function<double()>;

// Accumulated GPU-equivalent-seconds of one namespace and class ("" = unclassified).
struct GeSeconds {
  std::string namespaceName;
  std::string className;
  double gpuEquivalents = 0;  // held right now
  double seconds = 0;         // GE x seconds since the ledger first saw them
};

class Ledger {
 public:
  // How many departed pods the ledger remembers for knownPods: more than a burst of GPU pods
  // ends within a reservation's lifetime (a reservation older than its TTL is dropped anyway).
  static constexpr std::size_t kGoneKept = 8192;

  explicit Ledger(std::shared_ptr<const policy::PolicySet> policy, SecondsClock now = {});

  // A new policy: GPU-equivalents per unit follow it immediately. Classes of pods already in the
  // ledger were computed under the old policy; the caller re-lists to reclassify them.
  void setPolicy(std::shared_ptr<const policy::PolicySet> policy);
  const std::shared_ptr<const policy::PolicySet>& policy() const { return policy_; }

  // A full list replaces everything known of that kind. Paginated lists stage pages and swap
  // on commit, so a half-read list never shows. Only pods count (isPodObject), in lists and
  // events; a key listed twice counts once, as its last item says.
  void applyPodList(const rapidjson::Value& items);
  void beginPodList();
  void addPodPage(const rapidjson::Value& items);
  void commitPodList();
  void applyPodEvent(EventType type, const rapidjson::Value& pod);

  void applyNamespaceList(const rapidjson::Value& items);
  void beginNamespaceList();
  void addNamespacePage(const rapidjson::Value& items);
  void commitNamespaceList();
  void applyNamespaceEvent(EventType type, const rapidjson::Value& ns);

  // The two resources above as sinks for the list/watch loop.
  ListSink podSink() {
    return sinkOf(*this, &Ledger::beginPodList, &Ledger::addPodPage, &Ledger::commitPodList,
                  &Ledger::applyPodEvent);
  }
  ListSink namespaceSink() {
    return sinkOf(*this, &Ledger::beginNamespaceList, &Ledger::addNamespacePage,
                  &Ledger::commitNamespaceList, &Ledger::applyNamespaceEvent);
  }

  // The current usage as an immutable snapshot; with `dra`, the claims' GPUs count too, once
  // each (engine::addClaimUsage), and pods' claims resolve against them.
  std::shared_ptr<const engine::UsageSnapshot> snapshot(
      bool available, std::string unavailableReason,
      std::shared_ptr<const engine::DraObjects> dra = nullptr) const;

  // GE-seconds per namespace and class, accumulated up to now().
  std::vector<GeSeconds> geSeconds();

  std::size_t podCount() const { return pods_.live().size(); }
  std::size_t namespaceCount() const { return namespaceLabels_.live().size(); }

 private:
  struct Unit {
    uint32_t resource;
    int64_t count;
  };
  struct PodRecord {
    uint32_t ns;
    uint32_t cls;
    std::vector<Unit> units;
  };
  // All pods of one namespace and class: units in use and the GE-seconds integral.
  struct Group {
    std::unordered_map<uint32_t, int64_t> units;  // resource id -> units
    double gpuEquivalents = 0;
    double geSeconds = 0;
    double since = 0;  // time geSeconds was last brought up to date
  };

  std::optional<PodRecord> recordOf(const rapidjson::Value& pod);
  void upsertPod(const rapidjson::Value& pod);
  void removePod(const std::string& key);  // and remember it left
  bool erasePod(const std::string& key);   // false when it was not there
  void addToGroup(const PodRecord& r, int sign);
  Group& group(uint32_t ns, uint32_t cls);
  void settle(Group& g, double now) const;
  double now() const { return now_ ? now_() : 0.0; }

  std::shared_ptr<const policy::PolicySet> policy_;
  SecondsClock now_;
  StringTable strings_;  // interned namespace, class and resource names
  // By uid (or namespace/name without uid).
  StagedList<std::unordered_map<std::string, PodRecord>> pods_;
  std::unordered_map<uint64_t, Group> groups_;  // (ns << 32 | class) -> group
  // Keys of pods that left the ledger (deleted, finished), newest last, at most kGoneKept: a
  // quota reservation of such a pod must not count again (UsageSnapshot::knownPods).
  void remember(const std::string& key);
  std::deque<std::string> gone_;
  StagedList<std::map<std::string, kube::Labels, std::less<>>> namespaceLabels_;
};

// The key the ledgers file a pod under: metadata.uid, or namespace/name for files without uids.
std::string podKeyOf(const rapidjson::Value& pod);

// What both ledgers take for a pod: an object whose kind is Pod or unset (items of a PodList
// carry none). Anything else (a Namespace in a mixed List) is not counted.
bool isPodObject(const rapidjson::Value& object);

// Calls `visit` with each pod of a list page: items whose kind is set and is not Pod are
// skipped, as is a page that is not an array.
template <class Visit>
void forEachPod(const rapidjson::Value& items, Visit visit) {
  if (!items.IsArray()) return;
  for (const auto& item : items.GetArray())
    if (isPodObject(item)) visit(item);
}

// A pod holds or waits for its GPUs: not Succeeded/Failed and not being deleted.
bool podHoldsResources(const rapidjson::Value& pod);

}  // namespace gpua::inventory
