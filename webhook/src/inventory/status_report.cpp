#include "inventory/status_report.hpp"

#include <algorithm>
#include <cmath>

namespace gpua::inventory {

namespace {

constexpr double kHour = 3600;

PoolStatus poolStatus(const std::string& name, const engine::SupplySnapshot& supply) {
  PoolStatus row;
  row.pool = name;
  if (const auto* p = supply.pool(name)) {
    row.nodesTotal = p->nodesTotal;
    row.nodesReady = p->nodesSchedulable;
    row.nodesNotReady = p->nodesNotReady;
    row.nodesCordoned =
        std::max<int64_t>(0, p->nodesTotal - p->nodesNotReady - p->nodesSchedulable);
    for (const auto& [resource, r] : p->resources)
      row.resources.push_back({resource, r.allocatable, r.allocated,
                               std::max<int64_t>(0, r.allocatable - r.allocated)});
    for (const auto& [resource, d] : p->dra)
      row.resources.push_back(
          {resource, d.devices, d.allocated, std::max<int64_t>(0, d.devices - d.allocated), "dra"});
  }
  for (const auto& q : supply.pending) {
    if (q.pool != name) continue;
    row.pendingPods += q.pods;
    row.oldestWaitSeconds = std::max(row.oldestWaitSeconds, q.oldestWaitSeconds);
  }
  return row;
}

ClassStatus classStatus(const std::string& name, const engine::SupplySnapshot& supply,
                        const std::vector<ScheduleWait>& waits, double now) {
  ClassStatus row;
  row.className = name;
  for (const auto& q : supply.pending) {
    if (q.className != name) continue;
    row.pendingPods += q.pods;
    row.oldestWaitSeconds = std::max(row.oldestWaitSeconds, q.oldestWaitSeconds);
  }
  std::vector<double> recent;
  for (const auto& w : waits)
    if (w.className == name && w.boundAtUnix >= now - kHour && w.boundAtUnix <= now)
      recent.push_back(w.seconds);
  row.boundLastHour = static_cast<int64_t>(recent.size());
  row.waitP50 = percentile(recent, 50);
  row.waitP95 = percentile(std::move(recent), 95);
  return row;
}

}  // namespace

std::optional<double> percentile(std::vector<double> values, double p) {
  if (values.empty()) return std::nullopt;
  std::sort(values.begin(), values.end());
  const auto rank =
      static_cast<std::size_t>(std::ceil(p / 100 * static_cast<double>(values.size())));
  return values[std::clamp<std::size_t>(rank, 1, values.size()) - 1];
}

StatusReport buildStatusReport(const policy::PolicySet& policy, const engine::UsageSnapshot& usage,
                               const engine::SupplySnapshot& supply,
                               const std::vector<ScheduleWait>& waits, double nowUnix) {
  StatusReport r;
  r.supplyAvailable = supply.available;
  r.supplyUnavailableReason = supply.unavailableReason;
  for (const auto& pool : policy.pools) r.pools.push_back(poolStatus(pool.name, supply));
  r.unpooledGpuNodes = supply.unpooledGpuNodes;
  r.quotas = quotaFigures(policy, usage);
  for (const auto& cls : policy.classes)
    r.classes.push_back(classStatus(cls.name, supply, waits, nowUnix));
  auto unclassified = classStatus("", supply, waits, nowUnix);
  if (unclassified.pendingPods > 0 || unclassified.boundLastHour > 0)
    r.classes.push_back(std::move(unclassified));
  return r;
}

}  // namespace gpua::inventory
