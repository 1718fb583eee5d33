#include "authoring/test_case.hpp"

namespace gpua::authoring {

engine::UsageSnapshot caseUsage(const TestCase& c, const policy::PolicySet& policy,
                                const SnapshotReader& files) {
  if (!c.usage.given || !c.usage.available) {
    engine::UsageSnapshot u =
        c.usage.given ? unavailableUsage(c.usage.reason.empty() ? "usage unavailable (test case)"
                                                                : c.usage.reason)
                      : emptyUsage();
    if (!c.draFiles.empty()) files.addDra(c.draFiles, policy, u);
    return u;
  }
  engine::UsageSnapshot u =
      c.usage.podsFiles.empty() ? emptyUsage() : files.usage(c.usage.podsFiles, policy);
  for (const auto& [ns, figures] : c.usage.namespaces) {
    auto& target = u.namespaces[ns];
    target.gpuEquivalents += figures.gpuEquivalents;
    for (const auto& [k, v] : figures.byClass) target.byClass[k] += v;
    for (const auto& [k, v] : figures.byResource) target.byResource[k] += v;
  }
  if (!c.draFiles.empty()) files.addDra(c.draFiles, policy, u);
  return u;
}

engine::SupplySnapshot caseSupply(const TestCase& c, const policy::PolicySet& policy,
                                  const SnapshotReader& files, const engine::DraObjects* dra) {
  if (c.nodesFiles.empty()) return {};
  return files.supply(c.nodesFiles, c.usage.podsFiles, policy, dra);
}

}  // namespace gpua::authoring
