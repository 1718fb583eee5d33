// The admission webhook behind the HTTP server: /mutate, /validate and /admit call the
// AdmissionReview codec with the policy and usage snapshots in force; /healthz, /readyz and
// /metrics serve operators. Every answer is counted, and decisions are logged as one JSON line
// each (names, uid and decision only: never the pod's env values or other content), at the
// level decisionLogLevel() gives.
#pragma once

#include <memory>
#include <string_view>

#include "admission/review.hpp"
#include "engine/context/usage.hpp"
#include "policy/policy_set.hpp"
#include "server/http_types.hpp"
#include "server/quota_reservation.hpp"
#include "server/readiness.hpp"
#include "server/router.hpp"
#include "server/snapshot.hpp"
#include "server/webhook_metrics.hpp"
#include "server/webhook_supply.hpp"
#include "telemetry/json_logger.hpp"
#include "telemetry/log_sampler.hpp"

namespace gpua::server {

struct WebhookDeps {
  std::shared_ptr<Snapshot<policy::PolicySet>> policy;
  std::shared_ptr<const engine::UsageSource> usage;  // may be null: usage unavailable
  std::shared_ptr<Readiness> readiness;
  WebhookMetrics* metrics = nullptr;
  telemetry::JsonLogger* logger = nullptr;
  admission::DecideFn decide = nullptr;  // null = engine::decide with the node supply
  // Thins routine decision lines (mutations, pods left alone); null keeps them all.
  telemetry::LogSampler* logSampler = nullptr;
  // Node supply for the capacity checks; null = no node source (the checks are off).
  std::shared_ptr<const engine::SupplySource> supply = nullptr;
  // Quota reservations shared by the replicas; null = quotas judge the watch's usage alone.
  std::shared_ptr<QuotaReserver> reserver = nullptr;
};

// How a decision is logged. Denials, violations (in any mode) and quota checks made without
// usage are what an operator searches for: info, never sampled. A mutation is info and a pod left
// alone is debug, both routine and so subject to the sample rate.
struct DecisionLogClass {
  telemetry::LogLevel level = telemetry::LogLevel::Debug;
  bool sampled = true;
};
DecisionLogClass decisionLogClass(const engine::Decision* decision);

class WebhookService {
 public:
  explicit WebhookService(WebhookDeps deps);

  // POST /mutate, /validate, /admit; GET /healthz, /readyz, /metrics.
  Router router();

  // A pod that must reserve quota comes back with HttpResponse::finishWaiting set: the
  // reservation's apiserver round trips are left to a thread that may wait.
  HttpResponse admit(const HttpRequest& request, admission::Endpoint endpoint);
  HttpResponse healthz(const HttpRequest& request);
  HttpResponse readyz(const HttpRequest& request);
  HttpResponse metrics(const HttpRequest& request);

  // Counts a request the transport or router rejected (body-too-large, unknown-path...).
  void countBadRequest(std::string_view kind);

 private:
  std::shared_ptr<const engine::UsageSnapshot> usageSnapshot() const;
  // An answer whose reservation is still to be made: HttpResponse::finishWaiting.
  HttpResponse reserveThenAnswer(admission::Endpoint endpoint,
                                 std::shared_ptr<const policy::PolicySet> policy,
                                 std::shared_ptr<const engine::UsageSnapshot> usage,
                                 admission::ReviewResult first);
  HttpResponse answer(const HttpRequest& request, admission::Endpoint endpoint,
                      const policy::PolicySet& policy, admission::ReviewResult& result);
  // Re-judges an admitted pod a quota governs with the replicas' reservations, and reserves.
  void reserve(const HttpRequest& request, admission::Endpoint endpoint,
               const std::shared_ptr<const policy::PolicySet>& policy,
               const engine::UsageSnapshot& usage, admission::ReviewResult& result);
  void record(const HttpRequest& request, const admission::ReviewResult& result,
              const policy::PolicySet& policy, admission::Endpoint endpoint);

  WebhookDeps deps_;
  std::shared_ptr<const engine::UsageSnapshot> emptyUsage_;
  SupplyForPolicy supply_;
};

// True for "application/json", with or without parameters ("; charset=utf-8"), any case.
bool isJsonContentType(std::string_view contentType);

// The quotaUnavailable fallback a decision took, for gpu_admission_quota_unavailable_total:
// "fail-closed" or "fail-open" when a quota covered the pod but usage was unavailable, else "".
std::string_view quotaFallback(const engine::Decision& decision, const policy::PolicySet& policy);

}  // namespace gpua::server
