#include "server/quota_reservation.hpp"

#include <utility>

namespace gpua::server {

namespace {

using Result = ReservationOutcome::Result;

int64_t systemMs() {
  using namespace std::chrono;
  return duration_cast<milliseconds>(system_clock::now().time_since_epoch()).count();
}

bool admitsCharged(const admission::ReviewResult& r) {
  return r.httpStatus == 200 && r.decision && r.decision->allowed() &&
         r.decision->quotaCharge.has_value() && !r.decision->quotaUnchecked;
}

}  // namespace

const char* resultName(Result r) {
  switch (r) {
    case Result::NotNeeded:
      return "not-needed";
    case Result::Reserved:
      return "reserved";
    case Result::Denied:
      return "denied";
    case Result::Unavailable:
      return "unavailable";
  }
  return "";
}

bool needsReservation(const admission::ReviewResult& result, admission::Endpoint endpoint) {
  // Only a validating webhook sees the pod's uid, which the watch files it under (so its
  // reservation is claimed once the pod shows up): /mutate and /admit run before the apiserver
  // assigns it.
  return endpoint == admission::Endpoint::Validate && !result.dryRun &&
         result.operation == "CREATE" && admitsCharged(result) &&
         !result.decision->quotaCharge->podUid.empty();
}

QuotaReserver::QuotaReserver(std::shared_ptr<engine::ReservationStore> store,
                             ReservationSettings settings)
    : store_(std::move(store)), settings_(std::move(settings)) {
  if (!settings_.wallMs) settings_.wallMs = systemMs;
  if (!settings_.steadyNow) settings_.steadyNow = [] { return std::chrono::steady_clock::now(); };
}

std::optional<engine::ReservationBook> QuotaReserver::cached() const {
  std::lock_guard lock(cacheMutex_);
  return cache_;
}

void QuotaReserver::remember(engine::ReservationBook book) {
  std::lock_guard lock(cacheMutex_);
  cache_ = std::move(book);
}

engine::Reservation QuotaReserver::entryOf(const admission::ReviewResult& r) const {
  const auto& d = *r.decision;
  const auto& c = *d.quotaCharge;
  return {c.podUid,         c.namespaceName + "/" + c.podName,
          c.namespaceName,  d.className,
          d.gpuEquivalents, c.units,
          c.quotas,         settings_.wallMs(),
          settings_.replica};
}

ReservationOutcome QuotaReserver::unavailable(const engine::UsageSnapshot& usage,
                                              const ReviewFn& review, ReservationOutcome out,
                                              std::string error) const {
  engine::UsageSnapshot none = usage;
  none.available = false;
  none.unavailableReason = "quota reservations unavailable (" + error + ")";
  out.result = Result::Unavailable;
  out.review = review(none);
  out.error = std::move(error);
  return out;
}

ReservationOutcome QuotaReserver::reserve(
    const engine::UsageSnapshot& usage, admission::ReviewResult first, const ReviewFn& review,
    std::optional<std::chrono::steady_clock::time_point> since) {
  ReservationOutcome out;
  const auto start = settings_.steadyNow();
  const auto deadline = since.value_or(start) + settings_.budget;
  if (since && start >= deadline) {
    const auto waited = std::chrono::duration_cast<std::chrono::milliseconds>(start - *since);
    return unavailable(usage, review, std::move(out),
                       "waited " + std::to_string(waited.count()) + " ms of a " +
                           std::to_string(settings_.budget.count()) +
                           " ms budget before a reservation could start");
  }
  const std::string uid = first.decision->quotaCharge->podUid;
  auto book = cached();
  for (;;) {
    if (!book) {
      ++out.roundTrips;
      auto read = store_->read(deadline);
      if (auto* failure = std::get_if<engine::ReservationStore::Failure>(&read))
        return unavailable(usage, review, std::move(out), failure->message);
      book = std::move(std::get<engine::ReservationBook>(read));
      remember(*book);
    }
    auto entries = engine::unexpired(book->entries, settings_.wallMs(), settings_.ttl, uid);
    out.review = review(engine::withReservations(usage, entries, uid));
    if (!admitsCharged(out.review)) {
      out.result = Result::Denied;
      return out;
    }
    entries.push_back(entryOf(out.review));
    ++out.roundTrips;
    auto written = store_->write(book->version, entries, deadline);
    if (auto* ok = std::get_if<engine::ReservationStore::Written>(&written)) {
      remember({ok->version, std::move(entries)});
      out.result = Result::Reserved;
      return out;
    }
    if (auto* failure = std::get_if<engine::ReservationStore::Failure>(&written))
      return unavailable(usage, review, std::move(out), failure->message);
    ++out.conflicts;  // another writer won: read what it wrote and judge again
    book.reset();
    if (settings_.steadyNow() >= deadline)
      return unavailable(usage, review, std::move(out),
                         std::to_string(out.conflicts) + " conflicting writes of " +
                             store_->where() + " before the deadline");
  }
}

}  // namespace gpua::server
