// The server's metric families, registered once from telemetry/metric_names.hpp and kept as
// references so the request path does no registry lookups.
#pragma once

#include "telemetry/build_info.hpp"
#include "telemetry/metric_names.hpp"
#include "telemetry/metrics.hpp"

namespace gpua::server {

struct WebhookMetrics {
  explicit WebhookMetrics(telemetry::Registry& r)
      : registry(r),
        requests(r.counter(telemetry::kRequestsTotal)),
        duration(r.histogram(telemetry::kRequestDurationSeconds)),
        badRequests(r.counter(telemetry::kBadRequestsTotal)),
        policyRevision(r.gauge(telemetry::kPolicyRevisionInfo)),
        policyReloads(r.counter(telemetry::kPolicyReloadTotal)),
        policyLastReloadSuccess(r.gauge(telemetry::kPolicyLastReloadSuccess).get()),
        certificateExpiry(r.gauge(telemetry::kCertificateExpiryTimestampSeconds).get()),
        openConnections(r.gauge(telemetry::kOpenConnections).get()),
        violations(r.counter(telemetry::kViolationsTotal)),
        quotaUnavailable(r.counter(telemetry::kQuotaUnavailableTotal)) {
    r.gauge(telemetry::kBuildInfo)
        .with({telemetry::kBuildVersion, telemetry::kBuildRevision})
        .set(1);
  }

  telemetry::Registry& registry;
  telemetry::CounterFamily& requests;       // path, decision, class, namespace, reason
  telemetry::HistogramFamily& duration;     // path
  telemetry::CounterFamily& badRequests;    // kind
  telemetry::GaugeFamily& policyRevision;   // revision
  telemetry::CounterFamily& policyReloads;  // result
  telemetry::Gauge& policyLastReloadSuccess;
  telemetry::Gauge& certificateExpiry;
  telemetry::Gauge& openConnections;
  telemetry::CounterFamily& violations;        // rule, mode
  telemetry::CounterFamily& quotaUnavailable;  // policy: fail-open|fail-closed
};

}  // namespace gpua::server
