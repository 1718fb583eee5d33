// Cross-reference checks for placement and priority: CPU pool names and references,
// nodeSelector placement (which can express only one pool's equality labels), priority tiers.
#include "policy/resolve_placement_and_tiers.hpp"

#include <map>

#include "policy/edit_distance.hpp"

namespace gpua::policy {

namespace {

void checkPoolNames(const Draft& d, Diagnostics& errors) {
  std::map<std::string, SourceLoc> seen;
  for (std::size_t i = 0; i < d.set.pools.size(); ++i)
    seen.emplace(d.set.pools[i].name, d.pools[i].name);
  for (std::size_t i = 0; i < d.set.cpuPools.size(); ++i) {
    auto [it, inserted] = seen.emplace(d.set.cpuPools[i].name, d.cpuPools[i].name);
    if (!inserted)
      report(errors, d.cpuPools[i].name, "duplicate pool '" + it->first + "'",
             "first defined at " + it->second.where() +
                 "; GPU and CPU pools share one namespace of names");
  }
  std::map<std::string, SourceLoc> tiers;
  for (std::size_t i = 0; i < d.set.priorityTiers.size(); ++i) {
    auto [it, inserted] = tiers.emplace(d.set.priorityTiers[i].name, d.priorityTiers[i]);
    if (!inserted)
      report(errors, d.priorityTiers[i], "duplicate priority tier '" + it->first + "'",
             "first defined at " + it->second.where() + "; names must be unique");
  }
}

std::string cpuPoolHint(const PolicySet& set, const std::string& name) {
  if (set.findPool(name))
    return "'" + name + "' is a GPU pool (spec.pools); list it under the class's pools";
  std::vector<std::string> names;
  for (const auto& p : set.cpuPools) names.push_back(p.name);
  if (names.empty()) return "no CPU pools are defined in spec.cpuPools";
  return suggestion(name, names);
}

// The class's CPU pools; empty after reporting a missing one.
std::vector<const Pool*> resolveCpuPools(const PolicySet& set, const WorkloadClass& c,
                                         const ClassOrigin& o, Diagnostics& errors) {
  std::vector<const Pool*> out;
  for (std::size_t i = 0; i < c.cpuPools.size(); ++i) {
    const Pool* p = set.findCpuPool(c.cpuPools[i]);
    if (p == nullptr)
      report(errors, o.cpuPools[i], "unknown CPU pool '" + c.cpuPools[i] + "'",
             cpuPoolHint(set, c.cpuPools[i]));
    else
      out.push_back(p);
  }
  return out.size() == c.cpuPools.size() ? out : std::vector<const Pool*>{};
}

// spec.nodeSelector is one map: it cannot OR pools, nor say NotIn, Exists or Gt.
void checkNodeSelectorPlacement(const WorkloadClass& c, const ClassOrigin& o,
                                const std::vector<const Pool*>& pools, const char* list,
                                Diagnostics& errors) {
  if (pools.size() > 1) {
    report(errors, o.placement,
           "placement via nodeSelector cannot choose between the " + std::to_string(pools.size()) +
               " " + list + " of class " + c.name,
           "a nodeSelector is one set of labels; use via: nodeAffinity, or split the class");
    return;
  }
  for (const auto* p : pools)
    if (!p->matchExpressions.empty())
      report(errors, o.placement,
             "placement via nodeSelector cannot express pool " + p->name + "'s matchExpressions (" +
                 p->matchExpressions.front().describe() + ")",
             "use via: nodeAffinity, or give the pool only nodeSelector labels");
}

}  // namespace

void resolvePlacementAndTiers(Draft& d, Diagnostics& errors) {
  checkPoolNames(d, errors);
  for (std::size_t i = 0; i < d.set.classes.size(); ++i) {
    const WorkloadClass& c = d.set.classes[i];
    const ClassOrigin& o = d.classes[i];
    const auto cpu = resolveCpuPools(d.set, c, o, errors);
    if (c.placement.via != Placement::Via::NodeSelector) continue;
    std::vector<const Pool*> gpu;
    for (const auto& name : c.pools)
      if (const Pool* p = d.set.findPool(name)) gpu.push_back(p);
    checkNodeSelectorPlacement(c, o, gpu, "pools", errors);
    checkNodeSelectorPlacement(c, o, cpu, "cpuPools", errors);
  }
}

}  // namespace gpua::policy
