#include "inventory/supply_ledger.hpp"

#include <algorithm>
#include <limits>
#include <utility>

#include "engine/classify/gpu_usage.hpp"
#include "inventory/pod_demand.hpp"
#include "kube/json.hpp"
#include "kube/rfc3339.hpp"

namespace gpua::inventory {

namespace json = kube::json;

namespace {

constexpr double kUnknownTime = std::numeric_limits<double>::quiet_NaN();

double timeOf(std::string_view text) {
  return kube::parseRfc3339(text).value_or(kUnknownTime);
}

bool hasIn(const rapidjson::Value& term, std::string_view key, std::string_view value) {
  const auto* exprs = json::member(term, "matchExpressions");
  if (exprs == nullptr || !exprs->IsArray()) return false;
  for (const auto& e : exprs->GetArray()) {
    const auto* values = json::member(e, "values");
    if (json::string(json::member(e, "key")) == key &&
        json::string(json::member(e, "operator")) == "In" && values != nullptr &&
        values->IsArray() && values->Size() == 1 && json::string(&(*values)[0]) == value)
      return true;
  }
  return false;
}

// The pod asks for the pool's nodes: its nodeSelector, or a required node affinity term, pins
// every label of the pool's nodeSelector (the engine's mutation writes the latter).
bool podTargetsPool(const rapidjson::Value& spec, const policy::Pool& pool) {
  const auto* selector = json::member(spec, "nodeSelector");
  auto inSelector = [&](const std::string& k, const std::string& v) {
    return json::string(json::member(selector, k)) == v;
  };
  const auto* terms =
      json::member(json::member(json::member(json::member(spec, "affinity"), "nodeAffinity"),
                                "requiredDuringSchedulingIgnoredDuringExecution"),
                   "nodeSelectorTerms");
  auto inTerm = [&](const rapidjson::Value& term) {
    for (const auto& [k, v] : pool.nodeSelector)
      if (!inSelector(k, v) && !hasIn(term, k, v)) return false;
    return true;
  };
  if (terms != nullptr && terms->IsArray() && !terms->Empty()) {
    for (const auto& term : terms->GetArray())
      if (!inTerm(term)) return false;  // terms are ORed: every one must stay in the pool
    return true;
  }
  for (const auto& [k, v] : pool.nodeSelector)
    if (!inSelector(k, v)) return false;
  return true;
}

// The pool a pending pod of class `className` waits for: the class's only pool, or the one of
// its pools the pod is pinned to; "" when unknown.
std::string_view poolOf(const rapidjson::Value& pod, std::string_view className,
                        const policy::PolicySet& policy) {
  const auto* cls = policy.findClass(className);
  if (cls == nullptr || cls->pools.empty()) return {};
  if (cls->pools.size() == 1) return cls->pools.front();
  const auto* spec = json::member(pod, "spec");
  for (const auto& name : cls->pools)
    if (const auto* pool = policy.findPool(name); pool != nullptr && podTargetsPool(*spec, *pool))
      return name;
  return {};
}

const rapidjson::Value* condition(const rapidjson::Value& pod, std::string_view type) {
  const auto* conditions = json::member(json::member(pod, "status"), "conditions");
  if (conditions == nullptr || !conditions->IsArray()) return nullptr;
  for (const auto& c : conditions->GetArray())
    if (json::string(json::member(c, "type")) == type) return &c;
  return nullptr;
}

// The bounded metric reason of a start failure, or "" when the pod did not fail at start for a
// device or resource reason.
std::string startFailureReason(const rapidjson::Value& pod, const NodeResourceFilter& filter) {
  if (json::path(pod, "status", "phase") != "Failed") return {};
  const auto reason = json::path(pod, "status", "reason");
  if (reason == "UnexpectedAdmissionError") return std::string(reason);
  if (!reason.starts_with("OutOf")) return {};
  const auto resource = reason.substr(5);
  const bool known = resource == "cpu" || resource == "memory" || resource == "pods" ||
                     resource == "ephemeral-storage" || filter.keeps(resource);
  return known ? std::string(reason) : "OutOfOther";
}

}  // namespace

SupplyLedger::SupplyLedger(std::shared_ptr<const policy::PolicySet> policy)
    : policy_(std::move(policy)), filter_(nodeResourceFilter(*policy_)) {}

bool SupplyLedger::setPolicy(std::shared_ptr<const policy::PolicySet> policy) {
  policy_ = std::move(policy);
  auto filter = nodeResourceFilter(*policy_);
  if (filter == filter_) return false;
  filter_ = std::move(filter);
  return true;
}

// ---- nodes ----

void SupplyLedger::setNodes(std::vector<engine::NodeSupply> nodes) {
  auto& live = nodes_.live();
  live.clear();
  for (auto& n : nodes) {
    auto name = n.name;
    live.insert_or_assign(std::move(name), std::move(n));
  }
}

void SupplyLedger::beginNodeList() {
  nodes_.begin();
}

void SupplyLedger::addNodePage(const rapidjson::Value& items) {
  if (!items.IsArray()) return;
  for (const auto& item : items.GetArray())
    if (auto node = decodeNode(item, filter_)) {
      auto name = node->name;
      nodes_.staged().insert_or_assign(std::move(name), std::move(*node));
    }
}

void SupplyLedger::commitNodeList() {
  nodes_.commit();
}

void SupplyLedger::applyNodeEvent(EventType type, const rapidjson::Value& node) {
  const auto name = json::path(node, "metadata", "name");
  if (name.empty()) return;
  auto& live = nodes_.live();
  if (type == EventType::Deleted) {
    if (auto it = live.find(name); it != live.end()) live.erase(it);
    return;
  }
  if (auto decoded = decodeNode(node, filter_))
    live.insert_or_assign(std::string(name), std::move(*decoded));
}

// ---- pods ----

void SupplyLedger::observe(const rapidjson::Value& pod, const std::string& key,
                           std::string_view cls) {
  if (!observedWait_.contains(key)) {
    const auto* scheduled = condition(pod, "PodScheduled");
    if (scheduled != nullptr && json::string(json::member(*scheduled, "status")) == "True") {
      const double bound = timeOf(json::string(json::member(*scheduled, "lastTransitionTime")));
      const double created = timeOf(json::path(pod, "metadata", "creationTimestamp"));
      if (bound == bound && created == created) {  // both known (not NaN)
        waits_.push_back({std::string(cls), std::max(0.0, bound - created), bound});
        observedWait_.insert(key);
      }
    }
  }
  if (!observedFailure_.contains(key)) {
    auto reason = startFailureReason(pod, filter_);
    if (!reason.empty()) {
      failures_.push_back({std::string(cls), std::move(reason)});
      observedFailure_.insert(key);
    }
  }
}

SupplyLedger::PodState SupplyLedger::stateOf(const rapidjson::Value& pod) {
  PodState s{podKeyOf(pod), std::nullopt, std::nullopt};
  const auto usage = engine::podGpuUsage(pod, *policy_);
  bool gpu = usage.hasResourceClaims;
  for (const auto& [resource, units] : usage.units) gpu = gpu || units > 0;
  if (!gpu) return s;
  observe(pod, s.key, usage.className);
  if (!podHoldsResources(pod)) return s;
  const auto nodeName = json::path(pod, "spec", "nodeName");
  if (nodeName.empty()) {
    s.pending = Pending{strings_.intern(usage.className),
                        strings_.intern(poolOf(pod, usage.className, *policy_)),
                        timeOf(json::path(pod, "metadata", "creationTimestamp"))};
    return s;
  }
  Bound b{strings_.intern(nodeName), {}};
  for (const auto& [resource, units] : podNodeDemand(pod, filter_))
    b.units.push_back({strings_.intern(resource), units});
  if (!b.units.empty()) s.bound = std::move(b);
  return s;
}

void SupplyLedger::addAllocated(const Bound& b, int sign) {
  auto& node = allocated_[b.node];
  for (const auto& u : b.units) {
    auto& v = node[u.resource];
    v += sign * u.units;
    if (v == 0) node.erase(u.resource);
  }
  if (node.empty()) allocated_.erase(b.node);
}

void SupplyLedger::removePod(const std::string& key) {
  auto& live = pods_.live();
  if (auto it = live.bound.find(key); it != live.bound.end()) {
    addAllocated(it->second, -1);
    live.bound.erase(it);
  }
  live.pending.erase(key);
}

void SupplyLedger::insertPod(PodState&& s) {
  if (s.bound) {
    addAllocated(*s.bound, +1);
    pods_.live().bound.emplace(s.key, std::move(*s.bound));
  } else if (s.pending) {
    pods_.live().pending.emplace(s.key, *s.pending);
  }
}

void SupplyLedger::beginPodList() {
  pods_.begin();
  listedKeys_.clear();
}

void SupplyLedger::addPodPage(const rapidjson::Value& items) {
  // A key listed twice: the last item wins, as a later event would.
  forEachPod(items, [this](const rapidjson::Value& pod) {
    auto s = stateOf(pod);
    listedKeys_.insert(s.key);
    auto& staged = pods_.staged();
    staged.bound.erase(s.key);
    staged.pending.erase(s.key);
    if (s.bound) staged.bound.emplace(s.key, std::move(*s.bound));
    if (s.pending) staged.pending.emplace(s.key, *s.pending);
  });
}

void SupplyLedger::commitPodList() {
  if (!pods_.commit()) return;
  rebuildAllocated();
  // Pods gone from the cluster can never be observed again: forget them.
  std::erase_if(observedWait_, [&](const std::string& k) { return !listedKeys_.contains(k); });
  std::erase_if(observedFailure_, [&](const std::string& k) { return !listedKeys_.contains(k); });
  listedKeys_.clear();
}

void SupplyLedger::rebuildAllocated() {
  allocated_.clear();
  for (const auto& [key, b] : pods_.live().bound) addAllocated(b, +1);
}

void SupplyLedger::applyPodEvent(EventType type, const rapidjson::Value& pod) {
  if (!isPodObject(pod)) return;
  if (type == EventType::Deleted) {
    const auto key = podKeyOf(pod);
    removePod(key);
    observedWait_.erase(key);
    observedFailure_.erase(key);
    return;
  }
  auto s = stateOf(pod);
  removePod(s.key);
  insertPod(std::move(s));
}

// ---- reading ----

std::vector<engine::NodeSupply> SupplyLedger::nodes() const {
  std::vector<engine::NodeSupply> out;
  out.reserve(nodes_.live().size());
  for (const auto& [name, node] : nodes_.live()) {
    out.push_back(node);
    const auto id = strings_.find(name);
    if (!id) continue;
    const auto alloc = allocated_.find(*id);
    if (alloc == allocated_.end()) continue;
    for (const auto& [resource, units] : alloc->second)
      out.back().allocated.emplace(strings_[resource], units);
  }
  return out;
}

std::vector<engine::PendingQueue> SupplyLedger::pending(double nowUnix) const {
  struct Group {
    int64_t pods = 0;
    double oldest = std::numeric_limits<double>::infinity();
  };
  std::map<std::pair<std::string_view, std::string_view>, Group> groups;
  for (const auto& [key, p] : pods_.live().pending) {
    auto& g = groups[{strings_[p.cls], strings_[p.pool]}];
    ++g.pods;
    if (p.createdUnix == p.createdUnix) g.oldest = std::min(g.oldest, p.createdUnix);
  }
  std::vector<engine::PendingQueue> out;
  out.reserve(groups.size());
  for (const auto& [k, g] : groups) {
    const double wait = g.oldest <= nowUnix ? nowUnix - g.oldest : 0;
    out.push_back({std::string(k.first), std::string(k.second), g.pods, wait});
  }
  return out;
}

std::vector<ScheduleWait> SupplyLedger::takeScheduleWaits() {
  return std::exchange(waits_, {});
}

std::vector<StartFailure> SupplyLedger::takeStartFailures() {
  return std::exchange(failures_, {});
}

engine::NodeInventory supplyFromLists(std::vector<engine::NodeSupply> nodes,
                                      const rapidjson::Value& pods, const policy::PolicySet& policy,
                                      double nowUnix, std::vector<ScheduleWait>* waits) {
  // The ledger wants shared ownership; the caller's policy outlives it, so alias it.
  SupplyLedger ledger(std::shared_ptr<const policy::PolicySet>(std::shared_ptr<void>(), &policy));
  ledger.setNodes(std::move(nodes));
  ledger.beginPodList();
  if (pods.IsObject() && json::member(pods, "items") != nullptr)
    ledger.addPodPage(*json::member(pods, "items"));
  else if (pods.IsArray())
    ledger.addPodPage(pods);
  else if (pods.IsObject()) {
    rapidjson::Document one(rapidjson::kArrayType);
    one.PushBack(rapidjson::Value(pods, one.GetAllocator()), one.GetAllocator());
    ledger.addPodPage(one);
  }
  ledger.commitPodList();
  engine::NodeInventory inventory{ledger.nodes(), ledger.pending(nowUnix)};
  if (waits != nullptr) *waits = ledger.takeScheduleWaits();
  return inventory;
}

}  // namespace gpua::inventory
