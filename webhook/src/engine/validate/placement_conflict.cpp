#include "engine/validate/placement_conflict.hpp"

#include "engine/core/text.hpp"
#include "engine/pod/pod_placement.hpp"

namespace gpua::engine {

namespace {

struct PoolNeeds {
  const policy::Pool* pool;
  std::vector<NodeRequirement> requirements;
};

// The first pair that cannot hold together, kept for the message.
struct Finding {
  std::size_t term = 0;  // index into PodPlacement::terms; unused when there are none
  const PoolNeeds* pool = nullptr;
  Contradiction on;
};

std::string describePod(const PodRequirement& r, const PodPlacement& pl, std::size_t term) {
  switch (r.source) {
    case PlacementSource::NodeSelector:
      return "nodeSelector " + std::string(r.req.key) + "=" + std::string(r.req.values.front());
    case PlacementSource::NodeName:
      return "spec.nodeName " + std::string(pl.nodeName);
    case PlacementSource::Term:
      break;
  }
  return "node affinity term " + std::to_string(pl.termIndex[term] + 1) + " " + describe(r.req);
}

bool onKey(const NodeRequirement& r, const Contradiction& c) {
  return r.key == c.key && r.field == c.field;
}

// "nodeSelector foo=something and node affinity term 1 foo In [a]"
std::string podSide(const PodPlacement& pl, const Finding& f) {
  std::vector<std::string> parts;
  for (const auto& r : pl.always)
    if (onKey(r.req, f.on)) parts.push_back(describePod(r, pl, f.term));
  if (!pl.terms.empty())
    for (const auto& r : pl.terms[f.term].requirements)
      if (onKey(r.req, f.on)) parts.push_back(describePod(r, pl, f.term));
  return text::join(parts, " and ");
}

std::string poolSide(const Finding& f) {
  std::vector<std::string> parts;
  for (const auto& r : f.pool->requirements)
    if (onKey(r, f.on)) parts.push_back(describe(r));
  return text::join(parts, " and ");
}

std::string message(const PlacementInput& in, const PodPlacement& pl, const Finding& f,
                    std::size_t poolCount) {
  const std::string pod = text::oneLine(podSide(pl, f), 240);
  const std::string pool = poolSide(f);
  const std::string key = text::oneLine(f.on.key, 80);
  std::string msg = in.pod.subject + ": ";
  if (pool.empty()) {
    msg += "its " + pod + " contradict each other";
  } else {
    msg += "its " + pod + " contradicts pool " + f.pool->pool->name + " of class " + in.cls.name +
           ", which requires " + pool;
  }
  if (pl.terms.size() > 1) msg += " (and each of its other node affinity terms contradicts too)";
  if (poolCount > 1) msg += " (and so do the class's other pools)";
  msg += ": no node can satisfy both, so the pod would never schedule; change or remove the " +
         std::string(in.pod.isTemplate ? "pod template's " : "pod's ") + key +
         " requirement, or use a class whose pools allow it";
  return msg;
}

// True when `always` AND `term` AND `pool` contradict; `on` says where.
bool contradicts(const PodPlacement& pl, const PlacementTerm* term, const PoolNeeds& pool,
                 Contradiction& on) {
  std::vector<const NodeRequirement*> all;
  all.reserve(pl.always.size() + (term ? term->requirements.size() : 0) + pool.requirements.size());
  for (const auto& r : pl.always) all.push_back(&r.req);
  if (term != nullptr)
    for (const auto& r : term->requirements) all.push_back(&r.req);
  for (const auto& r : pool.requirements) all.push_back(&r);
  const auto c = findContradiction(all);
  if (c) on = *c;
  return c.has_value();
}

// The first requirement of the pool that the node's labels break, described with what the node
// has; empty when the node satisfies the pool.
std::string brokenBy(const NodeSupply& node, const PoolNeeds& pool) {
  for (const auto& r : pool.requirements) {
    if (satisfiedBy(r, node.labels, node.name)) continue;
    const auto it = node.labels.find(r.key);
    return describe(r) + ", the node has " +
           (it == node.labels.end() ? "no " + std::string(r.key) + " label"
                                    : std::string(r.key) + "=" + it->second);
  }
  return {};
}

// A pod bound by spec.nodeName skips the scheduler; the kubelet still refuses it when the node
// does not match its affinity, which the mutation narrows to the pools.
bool boundNodeConflicts(const PlacementInput& in, const PodPlacement& pl,
                        const std::vector<PoolNeeds>& pools, Violations& out) {
  if (pl.nodeName.empty() || in.supply == nullptr || !in.supply->available) return false;
  const NodeSupply* node = in.supply->node(pl.nodeName);
  if (node == nullptr) return false;
  std::string first;
  for (const auto& pool : pools) {
    std::string why = brokenBy(*node, pool);
    if (why.empty()) return false;
    if (first.empty()) first = "pool " + pool.pool->name + " requires " + why;
  }
  out.push_back({std::string(kPlacementConflictRule),
                 in.pod.subject + ": its spec.nodeName " + text::oneLine(pl.nodeName, 80) +
                     " is a node outside the pools of class " + in.cls.name + " (" +
                     text::oneLine(first, 240) +
                     "): the kubelet would refuse the pod; remove spec.nodeName or name a node "
                     "of the class's pools",
                 false, true});
  return true;
}

}  // namespace

bool checkPlacementConflict(const PlacementInput& in, Violations& out) {
  const PodPlacement pl = podPlacementOf(in.pod);
  if (pl.unconstrained() || !pl.alwaysDecidable) return false;
  std::vector<PoolNeeds> pools;
  pools.reserve(in.pools.size());
  for (const auto* p : in.pools)
    if (auto reqs = poolRequirements(*p); !reqs.empty()) pools.push_back({p, std::move(reqs)});
  if (pools.empty()) return false;  // no pool selection is ANDed in
  std::optional<Finding> first;
  const std::size_t termCount = pl.terms.empty() ? 1 : pl.terms.size();
  for (std::size_t t = 0; t < termCount; ++t) {
    const PlacementTerm* term = pl.terms.empty() ? nullptr : &pl.terms[t];
    if (term != nullptr && !term->decidable) return false;
    for (const auto& pool : pools) {
      Contradiction on;
      if (!contradicts(pl, term, pool, on)) return boundNodeConflicts(in, pl, pools, out);
      if (!first) first = Finding{t, &pool, on};
    }
  }
  out.push_back({std::string(kPlacementConflictRule), message(in, pl, *first, pools.size())});
  return true;
}

}  // namespace gpua::engine
