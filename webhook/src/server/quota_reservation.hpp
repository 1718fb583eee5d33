// Quotas that hold across webhook replicas. Each replica judges quotas against its own watch of
// the pods, which is milliseconds behind the creates it admitted itself and blind to those
// another replica admitted: a burst spread over replicas overshoots. So the validating webhook,
// for a pod it admits that a quota governs, reserves the pod's usage in one object in the
// apiserver, as Kubernetes' ResourceQuota admission plugin does with the quota's status:
//
//   read the reservations (and their resourceVersion)
//   judge the pod again against usage + the reservations whose pods the watch has not delivered
//   admitted: write them back with this pod's entry, at that resourceVersion
//   409 Conflict (another replica wrote first): read again and retry, until the deadline
//
// The judgement is admission::review() with another usage snapshot: the same path as every
// decision. Entries expire `ttl` after they were written, so a reservation no pod claims (the
// create failed later, the replica crashed) stops counting within ttl; until then a pod the
// watch has delivered counts once, as the pod (UsageSnapshot::knownPods). When the store cannot
// be read or written before the deadline, the quota check follows quotaUnavailable with the
// store's error as the reason: the same warning or denial as a broken watch.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "admission/review.hpp"
#include "engine/context/reservations.hpp"
#include "engine/context/usage.hpp"

namespace gpua::server {

struct ReservationSettings {
  // How long an entry counts when no pod claims it. It must outlast the longest a replica's
  // watch may lag while quotas stay live (--quota-unavailable-grace) plus a create's own time,
  // so a replica that has not seen a pod yet still counts its reservation.
  std::chrono::milliseconds ttl{90'000};
  // How long one admission may spend on reservations: below the webhook's timeoutSeconds.
  std::chrono::milliseconds budget{3'000};
  std::string replica;  // written in each entry: which replica reserved it
  // Injected for tests: wall clock (Unix ms, for `since`) and the monotonic clock (deadlines).
  std::function<int64_t()> wallMs;
  std::function<std::chrono::steady_clock::time_point()> steadyNow;
};

struct ReservationOutcome {
  enum class Result { NotNeeded, Reserved, Denied, Unavailable } result = Result::NotNeeded;
  admission::ReviewResult review;  // what to answer
  int roundTrips = 0;              // store reads and writes made
  int conflicts = 0;               // writes that lost a race
  std::string error;               // the store's failure, for Unavailable
};

const char* resultName(ReservationOutcome::Result r);

// True when this answer admits a pod a quota governs and so must reserve: a CREATE judged with
// live usage on /validate (the only endpoint that sees the pod's uid), not a dry run.
bool needsReservation(const admission::ReviewResult& result, admission::Endpoint endpoint);

class QuotaReserver {
 public:
  using ReviewFn = std::function<admission::ReviewResult(const engine::UsageSnapshot&)>;

  QuotaReserver(std::shared_ptr<engine::ReservationStore> store, ReservationSettings settings);

  // `first` is the review against `usage` alone (needsReservation(first) is true); `review`
  // judges the same request against another snapshot. The budget counts from `since` (when the
  // request arrived, so time spent waiting for a thread counts too), else from now.
  ReservationOutcome reserve(
      const engine::UsageSnapshot& usage, admission::ReviewResult first, const ReviewFn& review,
      std::optional<std::chrono::steady_clock::time_point> since = std::nullopt);

  const engine::ReservationStore& store() const { return *store_; }

 private:
  ReservationOutcome unavailable(const engine::UsageSnapshot& usage, const ReviewFn& review,
                                 ReservationOutcome out, std::string error) const;
  engine::Reservation entryOf(const admission::ReviewResult& r) const;
  std::optional<engine::ReservationBook> cached() const;
  void remember(engine::ReservationBook book);

  std::shared_ptr<engine::ReservationStore> store_;
  ReservationSettings settings_;
  // The last version this replica read or wrote: tried first, so an admission without a
  // concurrent writer costs one write. A stale copy only lacks newer entries, so a denial
  // judged on it holds; an admission judged on it is refused by the store (409) and re-read.
  mutable std::mutex cacheMutex_;
  std::optional<engine::ReservationBook> cache_;
};

}  // namespace gpua::server
