// Every metric the webhook exports, named once. The server and the cluster client register them
// through Registry::counter/gauge/histogram(MetricDef). Label cardinality stays bounded: paths,
// decisions, classes, reasons, rules and resources come from code or policy, and namespaces are
// bounded by the cluster. Never put a pod name, uid or user in a label.
#pragma once

#include <span>
#include <string_view>

namespace gpua::telemetry {

struct MetricDef {
  std::string_view name;
  std::string_view help;
  std::span<const std::string_view> labels;
};

namespace labels {
inline constexpr std::string_view kRequests[] = {"path", "decision", "class", "namespace",
                                                 "outcome"};
inline constexpr std::string_view kRequestsWithoutNamespace[] = {"path", "decision", "class",
                                                                 "outcome"};
inline constexpr std::string_view kPath[] = {"path"};
inline constexpr std::string_view kKind[] = {"kind"};
inline constexpr std::string_view kRevision[] = {"revision"};
inline constexpr std::string_view kResult[] = {"result"};
inline constexpr std::string_view kViolations[] = {"rule", "mode"};
inline constexpr std::string_view kResource[] = {"resource"};
inline constexpr std::string_view kNamespaceClass[] = {"namespace", "class"};
inline constexpr std::string_view kPolicy[] = {"policy"};
inline constexpr std::string_view kOverloadReason[] = {"reason"};
inline constexpr std::string_view kPoolState[] = {"pool", "state"};
inline constexpr std::string_view kPoolResource[] = {"pool", "resource"};
inline constexpr std::string_view kClassPool[] = {"class", "pool"};
inline constexpr std::string_view kClass[] = {"class"};
inline constexpr std::string_view kClassReason[] = {"class", "reason"};
inline constexpr std::string_view kQuotaScope[] = {"quota", "scope"};
inline constexpr std::string_view kBuild[] = {"version", "revision"};
}  // namespace labels

// ---- server ----

// Always 1, labelled with the binary's version and source revision (`gpu-admission version`):
// which build answers, and whether every replica runs the same one during a rollout.
inline constexpr MetricDef kBuildInfo{
    "gpu_admission_build_info", "The gpu-admission build serving (value is 1).", labels::kBuild};

// Answered AdmissionReviews. path: /mutate|/validate; decision: allowed|denied|error;
// class: the workload class or ""; outcome: the engine's outcome (no-gpu, classified, exempt...).
// Series: paths x decisions x classes x outcomes x namespaces. Every factor but the namespace
// is bounded by code or policy (a few hundred series at most); namespaces are bounded by the
// cluster only, so `serve --metrics-namespace-label=false` drops that label
// (kRequestsTotalWithoutNamespace) where namespaces are many.
inline constexpr MetricDef kRequestsTotal{
    "gpu_admission_requests_total",
    "AdmissionReview requests answered, by path, decision, class, namespace and outcome.",
    labels::kRequests};
inline constexpr MetricDef kRequestsTotalWithoutNamespace{
    "gpu_admission_requests_total",
    "AdmissionReview requests answered, by path, decision, class and outcome.",
    labels::kRequestsWithoutNamespace};

// Wall time from the first byte of a request to its response being queued. Buckets:
// latencyBucketsSeconds() (50us .. 10s).
inline constexpr MetricDef kRequestDurationSeconds{"gpu_admission_request_duration_seconds",
                                                   "Time to answer one admission request.",
                                                   labels::kPath};

// Requests refused before the engine ran. kind: the admission errorKind (invalid-json,
// too-deep, wrong-api-version...) or a transport kind (body-too-large, wrong-method...).
inline constexpr MetricDef kBadRequestsTotal{"gpu_admission_bad_requests_total",
                                             "Requests rejected as malformed, by error kind.",
                                             labels::kKind};

// Always 1 for the loaded policy revision (join on it to see which revision decided); only the
// revision in force has a series, earlier ones are removed on reload.
inline constexpr MetricDef kPolicyRevisionInfo{"gpu_admission_policy_revision_info",
                                               "The policy revision in force (value is 1).",
                                               labels::kRevision};

// Policy reload attempts. result: success|error.
inline constexpr MetricDef kPolicyReloadTotal{
    "gpu_admission_policy_reload_total", "Policy reload attempts, by result.", labels::kResult};

// 1 when the last reload succeeded, 0 while a broken policy is being ignored.
inline constexpr MetricDef kPolicyLastReloadSuccess{
    "gpu_admission_policy_last_reload_success",
    "Whether the last policy reload succeeded (1) or failed and the old policy is kept (0).",
    {}};

// notAfter of the serving certificate, Unix seconds: alert when it comes close.
inline constexpr MetricDef kCertificateExpiryTimestampSeconds{
    "gpu_admission_certificate_expiry_timestamp_seconds",
    "Expiry (notAfter) of the serving TLS certificate, in Unix seconds.",
    {}};

inline constexpr MetricDef kOpenConnections{
    "gpu_admission_open_connections", "TLS connections currently open.", {}};

// Connections and requests refused to keep memory bounded. reason: max-connections|
// max-connections-per-source (closed right after accept), buffer-budget (503 before the body).
inline constexpr MetricDef kOverloadRejectionsTotal{
    "gpu_admission_overload_rejections_total",
    "Connections or requests refused by the connection limits or the request-buffer budget.",
    labels::kOverloadReason};

// accept() failures (EMFILE, ENFILE, ENOMEM...); each one backs the accept loop off.
inline constexpr MetricDef kAcceptErrorsTotal{
    "gpu_admission_accept_errors_total", "Failed accept() calls on the listening socket.", {}};

// Certificate reloads that failed (unreadable, mismatched, or refused for their validity):
// the previous certificate keeps serving.
inline constexpr MetricDef kCertificateReloadFailuresTotal{
    "gpu_admission_certificate_reload_failures_total",
    "Certificate reloads that failed or were refused; the served certificate is kept.",
    {}};

// When a certificate was last loaded successfully (start-up or rotation), Unix seconds.
inline constexpr MetricDef kCertificateLastReloadSuccessTimestampSeconds{
    "gpu_admission_certificate_last_reload_success_timestamp_seconds",
    "When the serving certificate was last loaded successfully, in Unix seconds.",
    {}};

// notBefore of the serving certificate, Unix seconds.
inline constexpr MetricDef kCertificateNotBeforeTimestampSeconds{
    "gpu_admission_certificate_not_before_timestamp_seconds",
    "Start of validity (notBefore) of the serving TLS certificate, in Unix seconds.",
    {}};

// Every broken rule, whatever the mode. rule: violation id; mode: enforce|warn|audit.
inline constexpr MetricDef kViolationsTotal{"gpu_admission_violations_total",
                                            "Policy violations found, by rule and rollout mode.",
                                            labels::kViolations};

// Log lines dropped because the asynchronous log queue was full (the reader of stdout fell
// behind). The log itself says how many were lost, in a warning written once it catches up.
inline constexpr MetricDef kLogLinesDroppedTotal{
    "gpu_admission_log_lines_dropped_total",
    "JSON log lines dropped because the log queue was full.",
    {}};

// ---- cluster client ----

// Watch restarts (410 Gone, disconnects). resource: pods|namespaces.
inline constexpr MetricDef kWatchRestartsTotal{"gpu_admission_watch_restarts_total",
                                               "Kubernetes watch restarts, by resource.",
                                               labels::kResource};

// Seconds since the last watch event or bookmark: a stuck watch shows as a growing value.
inline constexpr MetricDef kWatchLastEventAgeSeconds{
    "gpu_admission_watch_last_event_age_seconds",
    "Seconds since the last watch event or bookmark was received.",
    {}};

// Pods currently counted in the GPU usage ledger.
inline constexpr MetricDef kLedgerPods{
    "gpu_admission_ledger_pods", "Pods holding GPUs tracked in the usage ledger.", {}};

// GPU-equivalents times seconds held by running pods, for showback.
inline constexpr MetricDef kGpuEquivalentSecondsTotal{
    "gpu_admission_gpu_equivalent_seconds_total",
    "GPU-equivalent seconds consumed by running pods, by namespace and class.",
    labels::kNamespaceClass};

// Quota checks answered without live usage (API unreachable or not synced). policy: the
// quotaUnavailable behaviour applied (fail-open|fail-closed).
inline constexpr MetricDef kQuotaUnavailableTotal{
    "gpu_admission_quota_unavailable_total",
    "Quota checks made without live usage data, by the fallback policy applied.", labels::kPolicy};

// Quota reservations (server/quota_reservation.hpp) of GPU pods a quota governs. result:
// reserved (admitted and written), denied (the quota, counting reservations, refused the pod),
// unavailable (the reservation object could not be read or written in time: quotaUnavailable).
inline constexpr MetricDef kQuotaReservationsTotal{
    "gpu_admission_quota_reservations_total",
    "Quota reservations attempted for GPU pods a quota governs, by result.", labels::kResult};

// Apiserver requests made for reservations (GET and PUT/POST of the reservation ConfigMap): the
// cost of quotas that hold across replicas, about one per admitted governed pod.
inline constexpr MetricDef kQuotaReservationRoundTripsTotal{
    "gpu_admission_quota_reservation_round_trips_total",
    "Apiserver requests made to read or write quota reservations.",
    {}};

// Writes refused with 409 Conflict because another replica wrote first (each is retried).
inline constexpr MetricDef kQuotaReservationConflictsTotal{
    "gpu_admission_quota_reservation_conflicts_total",
    "Quota reservation writes that lost a race with another writer and were retried.",
    {}};

// ---- supply and queue (cluster client, node watch) ----

// Nodes of each pool (a node in several pools counts in each). state: ready (Ready and
// schedulable), not_ready (Ready condition not True), cordoned (spec.unschedulable, or a taint the
// pool does not tolerate).
inline constexpr MetricDef kPoolNodes{
    "gpu_admission_pool_nodes", "Nodes of each GPU pool, by state (ready, not_ready, cordoned).",
    labels::kPoolState};

// status.allocatable summed over the pool's usable nodes, per GPU resource name.
inline constexpr MetricDef kPoolAllocatable{
    "gpu_admission_pool_allocatable",
    "GPU units the pool's usable nodes advertise (status.allocatable), by resource.",
    labels::kPoolResource};

// Requests of the non-terminal pods bound to the pool's usable nodes, per GPU resource name.
inline constexpr MetricDef kPoolAllocated{
    "gpu_admission_pool_allocated",
    "GPU units requested by pods bound to the pool's usable nodes, by resource.",
    labels::kPoolResource};

// GPU devices of the ResourceSlices on the pool's usable nodes (DRA, spec.dra), by the resource
// the policy counts them as, and those allocated to claims. The device-plugin gauges above keep
// their meaning (KEP-5004's DRA-served extended names included there).
inline constexpr MetricDef kPoolDraDevices{
    "gpu_admission_pool_dra_devices",
    "GPU devices of DRA ResourceSlices on the pool's usable nodes, by the resource they count as.",
    labels::kPoolResource};
inline constexpr MetricDef kPoolDraAllocated{
    "gpu_admission_pool_dra_devices_allocated",
    "DRA GPU devices on the pool's usable nodes allocated to claims, by resource.",
    labels::kPoolResource};

// GPU pods without spec.nodeName. class/pool: "" when unclassified or the pool is not known.
inline constexpr MetricDef kPendingPods{"gpu_admission_pending_pods",
                                        "GPU pods not yet bound to a node, by class and pool.",
                                        labels::kClassPool};

inline constexpr MetricDef kPendingOldestSeconds{
    "gpu_admission_pending_oldest_seconds",
    "Seconds the oldest unbound GPU pod of each class and pool has waited since creation.",
    labels::kClassPool};

// Creation to PodScheduled=True (its lastTransitionTime), once per GPU pod. Buckets:
// scheduleWaitBucketsSeconds() (1 s .. 24 h).
inline constexpr MetricDef kScheduleWaitSeconds{
    "gpu_admission_schedule_wait_seconds",
    "Time from creation to being scheduled (PodScheduled=True) of GPU pods, by class.",
    labels::kClass};

// GPU pods that failed at start (status.phase Failed) for a device or resource reason:
// UnexpectedAdmissionError, OutOf<resource> (OutOfOther for resources the policy does not use).
inline constexpr MetricDef kPodStartFailuresTotal{
    "gpu_admission_pod_start_failures_total",
    "GPU pods that failed at start for device reasons, by class and reason.", labels::kClassReason};

// GPU-equivalents used and allowed per quota. scope: total | class:<name>, and for per-namespace
// quotas namespace:<ns> | namespace:<ns>/class:<name>.
inline constexpr MetricDef kQuotaUsed{"gpu_admission_quota_used",
                                      "GPU-equivalents in use under each quota and scope.",
                                      labels::kQuotaScope};
inline constexpr MetricDef kQuotaLimit{"gpu_admission_quota_limit",
                                       "GPU-equivalents each quota and scope allows.",
                                       labels::kQuotaScope};

// Upper bounds of the schedule wait buckets: 1 s to 24 h.
inline constexpr double kScheduleWaitBucketsSeconds[] = {
    1, 5, 15, 30, 60, 120, 300, 600, 1200, 1800, 3600, 7200, 14400, 21600, 43200, 86400};

}  // namespace gpua::telemetry
