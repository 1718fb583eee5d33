#include "inventory/ledger.hpp"

#include <utility>

#include "engine/classify/claim_usage.hpp"
#include "engine/classify/gpu_usage.hpp"
#include "kube/json.hpp"

namespace gpua::inventory {

namespace json = kube::json;

namespace {

uint64_t groupKey(uint32_t ns, uint32_t cls) {
  return (uint64_t{ns} << 32) | cls;
}

std::string_view namespaceOf(const rapidjson::Value& pod) {
  auto ns = json::path(pod, "metadata", "namespace");
  return ns.empty() ? std::string_view("default") : ns;
}

}  // namespace

std::string podKeyOf(const rapidjson::Value& pod) {
  auto uid = json::path(pod, "metadata", "uid");
  if (!uid.empty()) return std::string(uid);
  // Files made from templates carry no uid: namespace/name is unique enough there.
  auto ns = json::path(pod, "metadata", "namespace");
  auto name = json::path(pod, "metadata", "name");
  if (name.empty()) name = json::path(pod, "metadata", "generateName");
  return std::string(ns.empty() ? "default" : ns) + "/" + std::string(name);
}

bool isPodObject(const rapidjson::Value& object) {
  const auto kind = json::string(json::member(object, "kind"));
  return object.IsObject() && (kind.empty() || kind == "Pod");
}

bool podHoldsResources(const rapidjson::Value& pod) {
  const auto* deletion = json::member(json::member(pod, "metadata"), "deletionTimestamp");
  if (deletion != nullptr && !deletion->IsNull()) return false;
  auto phase = json::path(pod, "status", "phase");
  return phase != "Succeeded" && phase != "Failed";
}

Ledger::Ledger(std::shared_ptr<const policy::PolicySet> policy, SecondsClock now)
    : policy_(std::move(policy)), now_(std::move(now)) {}

std::optional<Ledger::PodRecord> Ledger::recordOf(const rapidjson::Value& pod) {
  if (!pod.IsObject() || !podHoldsResources(pod)) return std::nullopt;
  const auto usage = engine::podGpuUsage(pod, *policy_);
  PodRecord r{strings_.intern(namespaceOf(pod)), strings_.intern(usage.className), {}};
  for (const auto& [resource, count] : usage.units)
    if (count > 0) r.units.push_back({strings_.intern(resource), count});
  if (r.units.empty()) return std::nullopt;
  return r;
}

Ledger::Group& Ledger::group(uint32_t ns, uint32_t cls) {
  auto [it, inserted] = groups_.try_emplace(groupKey(ns, cls));
  if (inserted) it->second.since = now();
  return it->second;
}

void Ledger::settle(Group& g, double t) const {
  if (t > g.since) g.geSeconds += g.gpuEquivalents * (t - g.since);
  g.since = t;
}

void Ledger::addToGroup(const PodRecord& r, int sign) {
  auto& g = group(r.ns, r.cls);
  settle(g, now());
  for (const auto& u : r.units) {
    auto& count = g.units[u.resource];
    count += sign * u.count;
    if (count == 0) g.units.erase(u.resource);
  }
  // Recomputed from integer units, so adding and removing 1/7s never drifts.
  g.gpuEquivalents = 0;
  for (const auto& [resource, count] : g.units)
    g.gpuEquivalents += engine::gpuEquivalentsOf(strings_[resource], count, *policy_);
}

void Ledger::setPolicy(std::shared_ptr<const policy::PolicySet> policy) {
  policy_ = std::move(policy);
  const double t = now();
  for (auto& [key, g] : groups_) {
    settle(g, t);
    g.gpuEquivalents = 0;
    for (const auto& [resource, count] : g.units)
      g.gpuEquivalents += engine::gpuEquivalentsOf(strings_[resource], count, *policy_);
  }
}

void Ledger::upsertPod(const rapidjson::Value& pod) {
  const auto key = podKeyOf(pod);
  auto r = recordOf(pod);
  if (!r) return removePod(key);  // it ended (Succeeded, Failed) or is being deleted
  erasePod(key);
  addToGroup(*r, +1);
  pods_.live().emplace(key, std::move(*r));
}

bool Ledger::erasePod(const std::string& key) {
  auto& pods = pods_.live();
  auto it = pods.find(key);
  if (it == pods.end()) return false;
  addToGroup(it->second, -1);
  pods.erase(it);
  return true;
}

void Ledger::removePod(const std::string& key) {
  if (erasePod(key)) remember(key);
}

void Ledger::remember(const std::string& key) {
  gone_.push_back(key);
  if (gone_.size() > kGoneKept) gone_.pop_front();
}

void Ledger::applyPodList(const rapidjson::Value& items) {
  beginPodList();
  addPodPage(items);
  commitPodList();
}

void Ledger::beginPodList() {
  pods_.begin();
}

void Ledger::addPodPage(const rapidjson::Value& items) {
  // A key listed twice: the last item wins, as a later event would.
  forEachPod(items, [this](const rapidjson::Value& pod) {
    auto key = podKeyOf(pod);
    if (auto r = recordOf(pod))
      pods_.staged().insert_or_assign(std::move(key), std::move(*r));
    else
      pods_.staged().erase(key);
  });
}

void Ledger::commitPodList() {
  if (!pods_.staging()) return;
  // Groups survive with empty units so their GE-seconds counters never go backwards.
  const double t = now();
  for (auto& [key, g] : groups_) {
    settle(g, t);
    g.units.clear();
    g.gpuEquivalents = 0;
  }
  const auto before = std::move(pods_.live());
  pods_.commit();
  for (const auto& [key, r] : before)
    if (!pods_.live().contains(key)) remember(key);
  for (const auto& [key, r] : pods_.live()) addToGroup(r, +1);
}

void Ledger::applyPodEvent(EventType type, const rapidjson::Value& pod) {
  if (!isPodObject(pod)) return;
  if (type == EventType::Deleted)
    removePod(podKeyOf(pod));
  else
    upsertPod(pod);
}

void Ledger::applyNamespaceList(const rapidjson::Value& items) {
  beginNamespaceList();
  addNamespacePage(items);
  commitNamespaceList();
}

void Ledger::beginNamespaceList() {
  namespaceLabels_.begin();
}

void Ledger::addNamespacePage(const rapidjson::Value& items) {
  if (!items.IsArray()) return;
  for (const auto& ns : items.GetArray()) {
    auto name = json::path(ns, "metadata", "name");
    if (!name.empty())
      namespaceLabels_.staged().insert_or_assign(std::string(name), json::labelsOf(ns));
  }
}

void Ledger::commitNamespaceList() {
  namespaceLabels_.commit();
}

void Ledger::applyNamespaceEvent(EventType type, const rapidjson::Value& ns) {
  auto name = json::path(ns, "metadata", "name");
  if (name.empty()) return;
  auto& labels = namespaceLabels_.live();
  if (type == EventType::Deleted) {
    auto it = labels.find(name);
    if (it != labels.end()) labels.erase(it);
    return;
  }
  labels.insert_or_assign(std::string(name), json::labelsOf(ns));
}

std::shared_ptr<const engine::UsageSnapshot> Ledger::snapshot(
    bool available, std::string reason, std::shared_ptr<const engine::DraObjects> dra) const {
  auto s = std::make_shared<engine::UsageSnapshot>();
  s->available = available;
  s->unavailableReason = std::move(reason);
  s->namespaceLabels = namespaceLabels_.live();
  s->knownPods.insert(gone_.begin(), gone_.end());
  for (const auto& [key, r] : pods_.live()) s->knownPods.insert(key);
  for (const auto& [key, g] : groups_) {
    if (g.units.empty()) continue;
    auto& ns = s->namespaces[strings_[key >> 32]];
    const auto& cls = strings_[static_cast<uint32_t>(key)];
    ns.gpuEquivalents += g.gpuEquivalents;
    if (!cls.empty()) ns.byClass[cls] += g.gpuEquivalents;
    for (const auto& [resource, count] : g.units) ns.byResource[strings_[resource]] += count;
  }
  s->dra = std::move(dra);
  engine::addClaimUsage(*s, *policy_);
  return s;
}

std::vector<GeSeconds> Ledger::geSeconds() {
  const double t = now();
  std::vector<GeSeconds> out;
  out.reserve(groups_.size());
  for (auto& [key, g] : groups_) {
    settle(g, t);
    out.push_back(
        {strings_[key >> 32], strings_[static_cast<uint32_t>(key)], g.gpuEquivalents, g.geSeconds});
  }
  return out;
}

}  // namespace gpua::inventory
