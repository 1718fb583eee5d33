// What `gpu-admission status` shows, computed from the snapshots the webhook itself uses: per
// pool (nodes, GPU units allocatable / allocated / free, queue), per quota (GPU-equivalents used
// against the limit, top namespaces) and per class (queue, pods bound in the last hour, their
// wait percentiles). Pure: `now` is passed in.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "engine/context/supply.hpp"
#include "engine/context/usage.hpp"
#include "inventory/quota_usage.hpp"
#include "inventory/supply_ledger.hpp"
#include "policy/policy_set.hpp"

namespace gpua::inventory {

struct PoolStatus {
  struct Resource {
    std::string name;
    int64_t allocatable = 0;
    int64_t allocated = 0;
    int64_t free = 0;  // allocatable - allocated, never below 0
    // "device-plugin" (the nodes' status.allocatable, KEP-5004's DRA-served names included) or
    // "dra" (GPU devices of ResourceSlices, counted as spec.dra says).
    std::string source = "device-plugin";
  };
  std::string pool;
  int64_t nodesTotal = 0;
  int64_t nodesReady = 0;  // Ready and schedulable for the pool
  int64_t nodesNotReady = 0;
  int64_t nodesCordoned = 0;  // Ready but cordoned or tainted against the pool
  std::vector<Resource> resources;
  int64_t pendingPods = 0;
  double oldestWaitSeconds = 0;
};

struct ClassStatus {
  std::string className;  // "" = unclassified GPU pods
  int64_t pendingPods = 0;
  double oldestWaitSeconds = 0;
  int64_t boundLastHour = 0;
  std::optional<double> waitP50;  // over the pods bound in the last hour
  std::optional<double> waitP95;
};

struct StatusReport {
  bool supplyAvailable = false;
  std::string supplyUnavailableReason;
  std::vector<PoolStatus> pools;  // in policy order
  std::vector<std::string> unpooledGpuNodes;
  std::vector<QuotaFigure> quotas;
  std::vector<ClassStatus> classes;  // policy classes in order, then unclassified when present
};

// `supply` must be summarized (engine::summarizeSupply) for `policy`; `waits` are the schedule
// waits of the pods known (SupplyLedger / supplyFromLists).
StatusReport buildStatusReport(const policy::PolicySet& policy, const engine::UsageSnapshot& usage,
                               const engine::SupplySnapshot& supply,
                               const std::vector<ScheduleWait>& waits, double nowUnix);

// Nearest-rank percentile (p in 0..100) of `values`; nullopt when empty.
std::optional<double> percentile(std::vector<double> values, double p);

}  // namespace gpua::inventory
