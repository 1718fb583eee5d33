// Quota reservations: GPU usage a webhook replica has admitted but no watch has delivered yet.
// Replicas share them through one object in the apiserver (written with optimistic concurrency,
// see server/quota_reservation.hpp), so a burst spread over several replicas cannot admit more
// than a quota allows. Here: the entries, and how they add to a usage snapshot (pure).
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <string>
#include <variant>
#include <vector>

#include "engine/context/usage.hpp"

namespace gpua::engine {

// One admitted pod's usage, held until its pod is seen or the entry expires.
struct Reservation {
  std::string podUid;  // the key: the watch files pods by metadata.uid
  std::string pod;     // "namespace/name", for people reading the object with kubectl
  std::string namespaceName;
  std::string className;  // "" for an unclassified pod
  double gpuEquivalents = 0;
  std::map<std::string, int64_t> units;  // per GPU resource
  std::vector<std::string> quotas;       // the quotas that governed it (for people)
  int64_t sinceUnixMs = 0;               // when it was reserved (wall clock of the replica)
  std::string replica;                   // who reserved it (the pod name or host)

  bool operator==(const Reservation&) const = default;
};

// All reservations and the version they were read at (the object's resourceVersion; "" when
// the object does not exist yet).
struct ReservationBook {
  std::string version;
  std::vector<Reservation> entries;
};

// `usage` plus every reservation whose pod the usage does not already count (podUid not in
// usage.knownPods) and that is not `exceptUid` (the pod being judged, reserved by an earlier
// attempt). A reservation of a pod the watch has delivered counts once: as the pod.
UsageSnapshot withReservations(const UsageSnapshot& usage, const std::vector<Reservation>& entries,
                               std::string_view exceptUid);

// The entries to keep in the next write: those reserved less than `ttl` before `nowUnixMs`,
// minus `exceptUid`'s (replaced by the caller). A pod that never appears (its create failed
// after admission, the replica crashed) thus stops counting `ttl` after it was reserved.
std::vector<Reservation> unexpired(const std::vector<Reservation>& entries, int64_t nowUnixMs,
                                   std::chrono::milliseconds ttl, std::string_view exceptUid);

// Where reservations live: the apiserver in `serve` (cluster/reservation_store.hpp), a fake in
// tests. Both calls block until `deadline` at most, and report failures as values.
class ReservationStore {
 public:
  struct Failure {
    std::string message;  // one line: what failed and what to do
  };
  struct Conflict {};  // someone wrote since `book.version` was read: read again
  struct Written {
    std::string version;
  };
  using ReadResult = std::variant<ReservationBook, Failure>;
  using WriteResult = std::variant<Written, Conflict, Failure>;

  virtual ~ReservationStore() = default;
  virtual ReadResult read(std::chrono::steady_clock::time_point deadline) = 0;
  // Replaces the entries if the object is still at `version` ("" = create it).
  virtual WriteResult write(const std::string& version, const std::vector<Reservation>& entries,
                            std::chrono::steady_clock::time_point deadline) = 0;
  // Where the entries are, for messages: "ConfigMap gpu-admission/gpu-admission-quota-...".
  virtual std::string where() const = 0;
};

}  // namespace gpua::engine
