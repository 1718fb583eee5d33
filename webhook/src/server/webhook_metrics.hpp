// The server's metric families, registered once from telemetry/metric_names.hpp and kept as
// references so the request path does no registry lookups.
#pragma once

#include "telemetry/build_info.hpp"
#include "telemetry/metric_names.hpp"
#include "telemetry/metrics.hpp"

namespace gpua::server {

// Namespaces with series of their own in requests_total; requests from later ones are counted
// under namespace="_other" (the value comes from requests: without a cap every distinct name
// was a series kept forever).
inline constexpr std::size_t kMaxNamespaceLabelValues = 2000;

struct WebhookMetrics {
  // namespaceLabel: whether requests_total carries the namespace (serve
  // --metrics-namespace-label).
  explicit WebhookMetrics(telemetry::Registry& r, bool namespaceLabel = true)
      : registry(r),
        requestsByNamespace(namespaceLabel),
        requests(r.counter(namespaceLabel ? telemetry::kRequestsTotal
                                          : telemetry::kRequestsTotalWithoutNamespace)),
        duration(r.histogram(telemetry::kRequestDurationSeconds)),
        badRequests(r.counter(telemetry::kBadRequestsTotal)),
        policyRevision(r.gauge(telemetry::kPolicyRevisionInfo)),
        policyReloads(r.counter(telemetry::kPolicyReloadTotal)),
        policyLastReloadSuccess(r.gauge(telemetry::kPolicyLastReloadSuccess).get()),
        certificateExpiry(r.gauge(telemetry::kCertificateExpiryTimestampSeconds).get()),
        openConnections(r.gauge(telemetry::kOpenConnections).get()),
        overloadRejections(r.counter(telemetry::kOverloadRejectionsTotal)),
        acceptErrors(r.counter(telemetry::kAcceptErrorsTotal).get()),
        certificateReloadFailures(r.counter(telemetry::kCertificateReloadFailuresTotal).get()),
        certificateLastReloadSuccess(
            r.gauge(telemetry::kCertificateLastReloadSuccessTimestampSeconds).get()),
        certificateNotBefore(r.gauge(telemetry::kCertificateNotBeforeTimestampSeconds).get()),
        violations(r.counter(telemetry::kViolationsTotal)),
        quotaUnavailable(r.counter(telemetry::kQuotaUnavailableTotal)),
        reservations(r.counter(telemetry::kQuotaReservationsTotal)),
        reservationRoundTrips(r.counter(telemetry::kQuotaReservationRoundTripsTotal).get()),
        reservationConflicts(r.counter(telemetry::kQuotaReservationConflictsTotal).get()) {
    if (namespaceLabel) requests.capLabel("namespace", kMaxNamespaceLabelValues);
    r.gauge(telemetry::kBuildInfo)
        .with({telemetry::kBuildVersion, telemetry::kBuildRevision})
        .set(1);
  }

  telemetry::Registry& registry;
  const bool requestsByNamespace;
  telemetry::CounterFamily& requests;       // path, decision, class, [namespace,] outcome
  telemetry::HistogramFamily& duration;     // path
  telemetry::CounterFamily& badRequests;    // kind
  telemetry::GaugeFamily& policyRevision;   // revision
  telemetry::CounterFamily& policyReloads;  // result
  telemetry::Gauge& policyLastReloadSuccess;
  telemetry::Gauge& certificateExpiry;
  telemetry::Gauge& openConnections;
  telemetry::CounterFamily& overloadRejections;  // reason
  telemetry::Counter& acceptErrors;
  telemetry::Counter& certificateReloadFailures;
  telemetry::Gauge& certificateLastReloadSuccess;
  telemetry::Gauge& certificateNotBefore;
  telemetry::CounterFamily& violations;        // rule, mode
  telemetry::CounterFamily& quotaUnavailable;  // policy: fail-open|fail-closed
  telemetry::CounterFamily& reservations;      // result: reserved|denied|unavailable
  telemetry::Counter& reservationRoundTrips;
  telemetry::Counter& reservationConflicts;
};

}  // namespace gpua::server
