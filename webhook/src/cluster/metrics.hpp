// Counters of the cluster client, as plain atomics so the server can render them in whatever
// exposition format telemetry/ provides, without cluster/ depending on it.
#pragma once

#include <atomic>
#include <cstdint>

namespace gpua::cluster {

struct ClusterMetrics {
  std::atomic<uint64_t> watchRestarts{0};   // watch streams that ended and were re-opened
  std::atomic<uint64_t> relists{0};         // full re-lists (410 Gone, ERROR events, reclassify)
  std::atomic<uint64_t> apiErrors{0};       // failed requests (connect, TLS, HTTP >= 400)
  std::atomic<uint64_t> eventsApplied{0};   // watch events applied to the ledger
  std::atomic<int64_t> lastEventUnixMs{0};  // wall time of the last list or watch event (0 = none)
  std::atomic<uint64_t> ledgerPods{0};      // pods holding or waiting for GPUs
  std::atomic<uint64_t> ledgerNamespaces{0};
  std::atomic<uint64_t> ledgerNodes{0};
  std::atomic<bool> supplySynced{false};  // first list of nodes (and pods) completed
  std::atomic<bool> synced{false};        // first list of pods and namespaces completed
  std::atomic<bool> available{false};     // the published snapshot has available == true
};

}  // namespace gpua::cluster
