#include "server/webhook_service.hpp"

#include <cctype>
#include <chrono>
#include <string>
#include <utility>

#include "admission/response_writer.hpp"
#include "engine/decide.hpp"
#include "telemetry/exposition.hpp"
#include "text/ascii.hpp"

namespace gpua::server {

namespace {

using text::equalsIgnoreCase;

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

// "deferred": /mutate admitted unchanged a pod the engine denies, for /validate to deny (so an
// alert summing decision="denied" over both paths counts each denial once).
const char* decisionLabel(const admission::ReviewResult& r, admission::Endpoint endpoint) {
  if (r.httpStatus >= 500) return "error";
  if (r.decision && !r.decision->allowed())
    return admission::defersDenial(*r.decision, endpoint) ? "deferred" : "denied";
  return "allowed";
}

std::string_view pathLabel(admission::Endpoint e) {
  switch (e) {
    case admission::Endpoint::Mutate:
      return "/mutate";
    case admission::Endpoint::Validate:
      return "/validate";
    case admission::Endpoint::Both:
      return "/admit";
  }
  return "";
}

}  // namespace

std::string_view quotaFallback(const engine::Decision& decision, const policy::PolicySet& policy) {
  if (!decision.quotaUnchecked) return {};
  return policy.quotaUnavailable == policy::QuotaUnavailable::FailClosed ? "fail-closed"
                                                                         : "fail-open";
}

DecisionLogClass decisionLogClass(const engine::Decision* d) {
  using telemetry::LogLevel;
  if (d == nullptr) return {LogLevel::Debug, true};
  // Not warnings: every mutation warns with the list of its changes.
  if (!d->allowed() || !d->violations.empty() || d->quotaUnchecked) return {LogLevel::Info, false};
  if (!d->patch.empty()) return {LogLevel::Info, true};
  return {LogLevel::Debug, true};
}

bool isJsonContentType(std::string_view contentType) {
  const auto semi = contentType.find(';');
  return equalsIgnoreCase(trim(contentType.substr(0, semi)), "application/json");
}

WebhookService::WebhookService(WebhookDeps deps)
    : deps_(std::move(deps)),
      emptyUsage_(std::make_shared<const engine::UsageSnapshot>()),
      supply_(deps_.supply) {}

Router WebhookService::router() {
  Router r;
  auto admitAs = [this](admission::Endpoint e) {
    return [this, e](const HttpRequest& req) { return admit(req, e); };
  };
  r.add("POST", "/mutate", admitAs(admission::Endpoint::Mutate));
  r.add("POST", "/validate", admitAs(admission::Endpoint::Validate));
  r.add("POST", "/admit", admitAs(admission::Endpoint::Both));
  r.add("GET", "/healthz", [this](const HttpRequest& q) { return healthz(q); });
  r.add("GET", "/readyz", [this](const HttpRequest& q) { return readyz(q); });
  r.add("GET", "/metrics", [this](const HttpRequest& q) { return metrics(q); });
  return r;
}

std::shared_ptr<const engine::UsageSnapshot> WebhookService::usageSnapshot() const {
  if (!deps_.usage) return emptyUsage_;
  auto s = deps_.usage->current();
  return s ? s : emptyUsage_;
}

HttpResponse WebhookService::admit(const HttpRequest& request, admission::Endpoint endpoint) {
  if (!isJsonContentType(request.contentType)) {
    countBadRequest("wrong-content-type");
    return HttpResponse::text(
        415, "unsupported Content-Type \"" + request.contentType + "\": send application/json",
        "wrong-content-type");
  }
  // The apiserver sends plain JSON; a gzip body read as JSON would be refused as invalid JSON,
  // which hides what is wrong.
  if (const auto coding = trim(request.contentEncoding);
      !coding.empty() && !equalsIgnoreCase(coding, "identity")) {
    countBadRequest("unsupported-content-encoding");
    return HttpResponse::text(415,
                              "unsupported Content-Encoding \"" + request.contentEncoding +
                                  "\": send the AdmissionReview uncompressed",
                              "unsupported-content-encoding");
  }
  const auto policy = deps_.policy->get();
  if (!policy) return HttpResponse::text(503, "no policy loaded", "no-policy");
  const auto usage = usageSnapshot();
  // One result per I/O thread, kept from request to request: its strings keep their capacity.
  thread_local admission::ReviewResult result;
  if (deps_.decide)
    result = admission::review(request.body, endpoint, *policy, *usage, deps_.decide);
  else
    admission::review(request.body, endpoint, *policy, *usage, *supply_.get(policy), result);
  if (deps_.reserver && needsReservation(result, endpoint))
    return reserveThenAnswer(endpoint, policy, usage, std::move(result));
  return answer(request, endpoint, *policy, result);
}

// The reservation waits on the apiserver: the server runs it away from its I/O threads.
HttpResponse WebhookService::reserveThenAnswer(admission::Endpoint endpoint,
                                               std::shared_ptr<const policy::PolicySet> policy,
                                               std::shared_ptr<const engine::UsageSnapshot> usage,
                                               admission::ReviewResult first) {
  HttpResponse waiting;
  waiting.finishWaiting = [this, endpoint, policy = std::move(policy), usage = std::move(usage),
                           first = std::make_shared<admission::ReviewResult>(std::move(first))](
                              const HttpRequest& request) {
    reserve(request, endpoint, policy, *usage, *first);
    return answer(request, endpoint, *policy, *first);
  };
  return waiting;
}

HttpResponse WebhookService::answer(const HttpRequest& request, admission::Endpoint endpoint,
                                    const policy::PolicySet& policy,
                                    admission::ReviewResult& result) {
  record(request, result, policy, endpoint);
  // The body goes to the response without a copy (record() is done with it): a typical response
  // is kilobytes of base64 patch. The result takes the connection's spare buffer in exchange, so
  // the next review writes into memory already there.
  if (result.httpStatus != 200)
    return HttpResponse::text(result.httpStatus, std::exchange(result.body, {}),
                              std::exchange(result.errorKind, {}));
  HttpResponse response;
  response.status = result.httpStatus;
  response.body = std::move(request.spareBody);
  response.body.swap(result.body);
  return response;
}

void WebhookService::reserve(const HttpRequest& request, admission::Endpoint endpoint,
                             const std::shared_ptr<const policy::PolicySet>& policy,
                             const engine::UsageSnapshot& usage, admission::ReviewResult& result) {
  const auto again = [&](const engine::UsageSnapshot& u) {
    return deps_.decide
               ? admission::review(request.body, endpoint, *policy, u, deps_.decide)
               : admission::review(request.body, endpoint, *policy, u, *supply_.get(policy));
  };
  auto outcome = deps_.reserver->reserve(usage, std::move(result), again, request.received);
  auto& m = *deps_.metrics;
  m.reservations.with({resultName(outcome.result)}).inc();
  m.reservationRoundTrips.inc(outcome.roundTrips);
  m.reservationConflicts.inc(outcome.conflicts);
  if (!outcome.error.empty())
    deps_.logger->warn("quota reservation failed", {{"uid", outcome.review.uid},
                                                    {"namespace", outcome.review.namespaceName},
                                                    {"error", outcome.error},
                                                    {"conflicts", outcome.conflicts}});
  result = std::move(outcome.review);
}

void WebhookService::record(const HttpRequest& request, const admission::ReviewResult& result,
                            const policy::PolicySet& policy, admission::Endpoint endpoint) {
  const std::string_view path = pathLabel(endpoint);
  using namespace std::chrono;
  const auto micros = duration_cast<microseconds>(steady_clock::now() - request.received).count();
  auto& m = *deps_.metrics;
  m.duration.with({path}).observe(static_cast<double>(micros) / 1e6);
  auto& log = *deps_.logger;

  if (result.httpStatus >= 400 && result.httpStatus < 500) {
    countBadRequest(result.errorKind);
    log.warn("bad admission request", {{"path", path},
                                       {"status", result.httpStatus},
                                       {"kind", result.errorKind},
                                       {"uid", result.uid},
                                       {"error", result.body},
                                       {"latency_us", micros}});
    return;
  }
  const auto* d = result.decision ? &*result.decision : nullptr;
  const std::string_view cls = d ? std::string_view(d->className) : std::string_view();
  const std::string_view outcome =
      d ? std::string_view(engine::outcomeName(d->outcome)) : std::string_view("not-applicable");
  const char* decision = decisionLabel(result, endpoint);
  if (m.requestsByNamespace)
    m.requests.with({path, decision, cls, result.namespaceName, outcome}).inc();
  else
    m.requests.with({path, decision, cls, outcome}).inc();
  if (d) {
    for (const auto& v : d->violations)
      m.violations.with({v.rule, engine::modeName(d->mode)}).inc();
    if (const auto fallback = quotaFallback(*d, policy); !fallback.empty())
      m.quotaUnavailable.with({fallback}).inc();
  }

  if (result.httpStatus >= 500) {
    log.error("admission request failed", {{"path", path},
                                           {"uid", result.uid},
                                           {"namespace", result.namespaceName},
                                           {"name", result.name},
                                           {"decision", decision},
                                           {"error", result.body},
                                           {"latency_us", micros}});
    return;
  }
  // Checked before any field is gathered: a line not written costs nothing more.
  const auto how = decisionLogClass(d);
  if (!log.enabled(how.level)) return;
  if (how.sampled && deps_.logSampler && !deps_.logSampler->keep()) return;
  log.log(
      how.level, "admission decision",
      {{"path", path},
       {"uid", result.uid},
       {"namespace", result.namespaceName},
       {"name", result.name},
       {"kind", result.kind},
       {"operation", result.operation},
       {"dryRun", result.dryRun},
       {"class", cls},
       {"decision", decision},
       {"outcome", outcome},
       {"reason", d ? std::string_view(d->reason) : std::string_view()},
       {"mode", d ? engine::modeName(d->mode) : ""},
       {"message", d && d->denial ? std::string_view(d->denial->message) : ""},
       {"changes", d ? std::span<const std::string>(d->changes) : std::span<const std::string>()},
       {"policyRevision", policy.revision},
       {"latency_us", micros}});
}

void WebhookService::countBadRequest(std::string_view kind) {
  deps_.metrics->badRequests.with({kind}).inc();
}

HttpResponse WebhookService::healthz(const HttpRequest&) {
  return HttpResponse::text(200, "ok");
}

HttpResponse WebhookService::readyz(const HttpRequest&) {
  const auto problems = deps_.readiness->problems();
  if (problems.empty()) return HttpResponse::text(200, "ready");
  return HttpResponse::text(503, "not ready: " + problems, "not-ready");
}

HttpResponse WebhookService::metrics(const HttpRequest&) {
  HttpResponse r;
  r.contentType = telemetry::kExpositionContentType;
  r.body = deps_.metrics->registry.render();
  return r;
}

}  // namespace gpua::server
