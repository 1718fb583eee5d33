#include "engine/context/reservations.hpp"

namespace gpua::engine {

UsageSnapshot withReservations(const UsageSnapshot& usage, const std::vector<Reservation>& entries,
                               std::string_view exceptUid) {
  UsageSnapshot out = usage;
  for (const auto& r : entries) {
    if (r.podUid == exceptUid || usage.knownPods.contains(r.podUid)) continue;
    auto& ns = out.namespaces[r.namespaceName];
    ns.gpuEquivalents += r.gpuEquivalents;
    if (!r.className.empty()) ns.byClass[r.className] += r.gpuEquivalents;
    for (const auto& [resource, n] : r.units) ns.byResource[resource] += n;
  }
  return out;
}

std::vector<Reservation> unexpired(const std::vector<Reservation>& entries, int64_t nowUnixMs,
                                   std::chrono::milliseconds ttl, std::string_view exceptUid) {
  std::vector<Reservation> kept;
  kept.reserve(entries.size() + 1);
  for (const auto& r : entries)
    if (r.podUid != exceptUid && nowUnixMs - r.sinceUnixMs < ttl.count()) kept.push_back(r);
  return kept;
}

}  // namespace gpua::engine
