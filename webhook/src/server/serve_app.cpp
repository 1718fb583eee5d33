#include "server/serve_app.hpp"

#include <boost/asio/signal_set.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>

#include <csignal>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <thread>
#include <vector>

#include "policy/loader.hpp"
#include "policy/namespace_label_rules.hpp"
#include "server/certificate_reload.hpp"
#include "server/http_server.hpp"
#include "server/process_resources.hpp"
#include "server/readiness.hpp"
#include "server/reloader.hpp"
#include "server/webhook_service.hpp"

namespace gpua::server {

namespace {

namespace net = boost::asio;
using namespace std::chrono_literals;

// The log queue: 4 MiB is about 8,000 decision lines, a quarter of a second of full load
// while the reader of stdout stalls; written every 64 KiB, and at least every 100 ms.
constexpr std::size_t kLogQueueBytes = std::size_t{4} << 20;
constexpr std::size_t kLogWakeBytes = std::size_t{64} << 10;
constexpr std::chrono::milliseconds kLogFlushInterval{100};

int startupError(std::FILE* console, const std::string& message) {
  std::fprintf(console, "gpu-admission serve: error: %s\n", message.c_str());
  return 1;
}

std::string policyError(const std::vector<policy::Diagnostic>& errors) {
  if (errors.empty()) return "policy: could not load policies";
  std::string out = "policy: " + errors.front().format();
  if (errors.size() > 1)
    out += " (and " + std::to_string(errors.size() - 1) +
           " more; run 'gpu-admission lint' on the policy files)";
  return out;
}

std::string urlHost(const std::string& host) {
  if (host == "0.0.0.0" || host == "::") return "localhost";
  if (host.find(':') != std::string::npos) return "[" + host + "]";
  return host;
}

// The CA to name in the banner's curl: the ca.crt that gen-dev-certs.sh writes beside the
// certificate, when it is there. The server never learns which CA signed its certificate, so
// otherwise the banner names none rather than a file that does not exist.
std::string bannerCaOption(const ServeConfig& c) {
  const auto ca = std::filesystem::path(c.tlsCert).parent_path() / "ca.crt";
  std::error_code ec;
  if (std::filesystem::is_regular_file(ca, ec)) return "--cacert " + ca.string() + " ";
  return "--cacert <the CA that signed " + c.tlsCert + "> ";
}

void printBanner(std::FILE* console, const ServeConfig& c, const policy::PolicySet& p,
                 uint16_t port) {
  const auto url = "https://" + urlHost(c.listen.host) + ":" + std::to_string(port);
  std::fprintf(console,
               "serving policies \"%s\" (revision %s) on %s — try: curl %s-H "
               "'Content-Type: application/json' --data "
               "@deploy/examples/admission-review-training.json %s/mutate\n",
               p.name.c_str(), p.revision.c_str(), url.c_str(), bannerCaOption(c).c_str(),
               url.c_str());
  std::fflush(console);
}

// What the server may use: threads from the CPUs the process may run on, connection and
// buffer limits from its memory limit (each overridable by a flag).
struct Capacity {
  unsigned threads = 1;
  uint64_t openFiles = 0;
  ResourceLimits limits;
};

Capacity capacityFor(const ServeConfig& config) {
  Capacity c;
  c.openFiles = raiseOpenFileLimit();
  const auto cgroup = processCgroup();
  c.threads =
      config.threads ? config.threads : defaultThreads(affinityCpus(), cgroupCpuLimit(cgroup));
  c.limits = limitsFor(cgroupMemoryLimit(cgroup), c.openFiles);
  if (config.maxConnections) {
    c.limits.maxConnections = *config.maxConnections;
    c.limits.maxConnectionsPerSource = std::max<std::size_t>(1, c.limits.maxConnections / 2);
  }
  if (config.maxConnectionsPerSource)
    c.limits.maxConnectionsPerSource = *config.maxConnectionsPerSource;
  if (config.maxBufferedBytes) c.limits.maxBufferedBytes = *config.maxBufferedBytes;
  return c;
}

// The thread for reservations' apiserver round trips. One: every reservation writes the same
// ConfigMap, so a second writer in the replica would only race the first (a 409, a re-read and a
// re-write, 12 concurrent writers over 3 replicas made /validate's p50 1 s in the live suite).
// In turn each is judged against the book the last one wrote, and one whose budget (counted
// from its arrival) ran out in the queue calls nothing, so a hung apiserver empties the queue
// within --quota-reservation-timeout.
constexpr unsigned kReservationThreads = 1;

HttpServerOptions serverOptions(const ServeConfig& config, const Capacity& capacity,
                                bool reserves) {
  HttpServerOptions o;
  o.headerTimeout = config.headerTimeout;
  o.bodyTimeout = config.bodyTimeout;
  o.idleTimeout = config.idleTimeout;
  o.maxBodyBytes = config.maxBodyBytes;
  o.maxConnections = capacity.limits.maxConnections;
  o.maxConnectionsPerSource = capacity.limits.maxConnectionsPerSource;
  o.maxBufferedBytes = capacity.limits.maxBufferedBytes;
  // With --client-ca, admission needs the apiserver's client certificate; the kubelet's probes
  // and Prometheus have none and get the health and metrics paths on the same port.
  o.requireClientCert = !config.clientCa.empty();
  o.clientCertExemptPaths = {"/healthz", "/readyz", "/metrics"};
  // A scrape renders every series (milliseconds for large clusters): never on an I/O thread.
  o.offloadPaths = {"/metrics"};
  o.waitingThreads = reserves ? kReservationThreads : 0;
  return o;
}

ServerEvents serverEvents(WebhookService& service, WebhookMetrics& metrics,
                          telemetry::JsonLogger& logger) {
  ServerEvents events;
  events.badRequest = [&service](std::string_view kind) { service.countBadRequest(kind); };
  events.connections = [&metrics](int64_t open) {
    metrics.openConnections.set(static_cast<double>(open));
  };
  events.handlerError = [&logger](const HttpRequest& r, std::string_view what) {
    logger.error("handler failed", {{"path", r.path}, {"error", what}});
  };
  events.overload = [&metrics](std::string_view reason) {
    metrics.overloadRejections.with({reason}).inc();
  };
  events.acceptError = [&metrics, &logger](std::string_view error, std::chrono::milliseconds b) {
    metrics.acceptErrors.inc();
    logger.warn("accept failed; backing off", {{"error", error}, {"backoffMs", b.count()}});
  };
  return events;
}

// Waits for in-flight requests to finish after stop(), up to the grace period, then stops
// the I/O threads.
void drainThenStop(net::io_context& ioc, HttpServer& server, telemetry::JsonLogger& log,
                   std::chrono::steady_clock::time_point deadline,
                   std::shared_ptr<net::steady_timer> timer) {
  if (server.openConnections() == 0 || std::chrono::steady_clock::now() >= deadline) {
    if (server.openConnections() > 0)
      log.warn("shutdown grace period over; closing remaining connections",
               {{"open", server.openConnections()}});
    ioc.stop();
    return;
  }
  timer->expires_after(20ms);
  timer->async_wait([&ioc, &server, &log, deadline, timer](boost::system::error_code) {
    drainThenStop(ioc, server, log, deadline, timer);
  });
}

// Runs a stop function when the scope ends, however it ends.
struct StopOnExit {
  const std::function<void()>& stop;
  ~StopOnExit() {
    if (stop) stop();
  }
};

// The replica's name in the reservations it writes: the pod's name in a cluster.
std::string replicaName() {
  for (const char* var : {"POD_NAME", "HOSTNAME"})
    if (const char* v = std::getenv(var); v != nullptr && *v != '\0') return v;
  return "gpu-admission";
}

std::shared_ptr<QuotaReserver> reserverFor(const ServeConfig& config, const UsageHookup& usage,
                                           telemetry::JsonLogger& log) {
  if (!usage.reservations) return nullptr;
  const std::string where = usage.reservations->where();
  log.info("quota reservations shared through the apiserver",
           {{"object", where},
            {"ttlMs", config.reservationTtl.count()},
            {"timeoutMs", config.reservationTimeout.count()}});
  return std::make_shared<QuotaReserver>(
      usage.reservations,
      ReservationSettings{config.reservationTtl, config.reservationTimeout, replicaName(), {}, {}});
}

// Quotas without a usage source are never live: say so once, loudly, at startup.
void warnIfQuotasUnchecked(telemetry::JsonLogger& log, const UsageHookup& usage,
                           const policy::PolicySet& policy) {
  if (usage.source || policy.quotas.empty()) return;
  const bool failOpen = policy.quotaUnavailable == policy::QuotaUnavailable::FailOpen;
  log.warn(failOpen ? "no usage source (--kubeconfig, --in-cluster or --usage-from): GPU quotas "
                      "are not checked, pods are admitted with a warning"
                    : "no usage source (--kubeconfig, --in-cluster or --usage-from): GPU pods "
                      "covered by a quota are denied (quotaUnavailable: failClosed)",
           {{"quotas", policy.quotas.size()}});
}

// Namespace labels come from the usage source too: without one, rules that select namespaces
// by label match nothing, which would silently change the rollout mode or skip a quota.
void warnIfNamespaceLabelsUnknown(telemetry::JsonLogger& log, const UsageHookup& usage,
                                  const policy::PolicySet& policy) {
  if (usage.source) return;
  const std::vector<std::string> rules = policy::namespaceLabelRules(policy);
  if (rules.empty()) return;
  log.warn(
      "no usage source (--kubeconfig, --in-cluster or --usage-from): namespace labels are "
      "unknown, so rules that select namespaces by label match no namespace",
      {{"rules", rules}});
}

// The capacity checks need nodes: without a node source they are off, which an operator who set
// capacityCheck: deny must hear about.
void warnIfCapacityUnchecked(telemetry::JsonLogger& log, const UsageHookup& usage,
                             const policy::PolicySet& policy) {
  if (usage.supply) return;
  std::vector<std::string> classes;
  for (const auto& c : policy.classes)
    if (c.gpus.request != policy::GpuRequest::Forbidden &&
        c.capacityCheck.value_or(policy.capacityCheck) != policy::CapacityCheck::Off)
      classes.push_back(c.name);
  if (classes.empty()) return;
  log.warn(
      "no node source (--kubeconfig or --in-cluster): capacity checks (no-capacity, "
      "gpu-stranding, the waiting hint) are off",
      {{"classes", classes}});
}

}  // namespace

int runServe(const ServeConfig& config, const ServeRuntime& runtime) {
  // Declared first, destroyed last: sessions report to metrics until the io_context is gone.
  telemetry::Registry registry;
  WebhookMetrics metrics(registry, config.metricsNamespaceLabel);
  // Asynchronous: a request never waits for stdout (a pipe in a container). Destroyed after
  // every thread that logs has stopped, and destruction writes what is queued, so a SIGTERM
  // loses no line.
  telemetry::JsonLogger logger(
      runtime.log, config.logLevel,
      telemetry::LogBuffering{kLogQueueBytes, kLogWakeBytes, kLogFlushInterval,
                              &registry.counter(telemetry::kLogLinesDroppedTotal).get()});
  telemetry::LogSampler logSampler(config.logSampleRate);

  ReloadTargets targets;
  targets.policyPaths = config.policyPaths;
  targets.tls = {config.tlsCert, config.tlsKey, config.clientCa};
  targets.policy = std::make_shared<Snapshot<policy::PolicySet>>();
  targets.metrics = &metrics;
  targets.logger = &logger;
  targets.serviceDnsName = config.serviceDnsName;
  targets.nativeOffload = config.nativeOffload;
  const Capacity capacity = capacityFor(config);

  // Fingerprint the files before loading them, so an edit during startup is not missed.
  auto tls = loadTlsContext(targets.tls);
  if (!tls.context) return startupError(runtime.console, "tls: " + tls.error);
  targets.tlsStore = std::make_shared<TlsContextStore>(tls.context);
  Reloader reloader(targets, config.reloadInterval);

  auto loaded = policy::loadPolicyPaths(config.policyPaths);
  if (!loaded.ok()) return startupError(runtime.console, policyError(loaded.errors));
  Reloader::publishPolicy(targets, loaded.policy);
  Reloader::publishCertificate(targets, tls);
  warnIfServiceNameMissing(targets, tls);
  metrics.policyReloads.with({"success"}).inc();

  UsageHookup usage{runtime.usage, {}, runtime.usage ? "provided" : "none"};
  if (runtime.usageFactory) {
    try {
      usage = runtime.usageFactory({registry, [p = targets.policy] { return p->get(); }, logger});
    } catch (const std::exception& e) {
      return startupError(runtime.console, e.what());
    }
  }
  // Stops the usage source on every way out, before the registry and logger it uses go away.
  const StopOnExit stopUsage{usage.stop};
  warnIfQuotasUnchecked(logger, usage, *loaded.policy);
  warnIfNamespaceLabelsUnknown(logger, usage, *loaded.policy);
  warnIfCapacityUnchecked(logger, usage, *loaded.policy);
  auto readiness =
      std::make_shared<Readiness>(usage.source, targets.tlsStore, config.serviceDnsName);
  readiness->setPoliciesLoaded(true);
  readiness->setCertificatesLoaded(true);
  readiness->setUnsyncedGrace(
      [p = targets.policy] {
        const auto policy = p->get();
        return policy && policy->quotaUnavailable == policy::QuotaUnavailable::FailOpen;
      },
      std::chrono::steady_clock::now() + config.syncGrace);

  const unsigned threads = capacity.threads;
  net::io_context ioc(static_cast<int>(threads));

  const auto reserver = reserverFor(config, usage, logger);
  WebhookService service({targets.policy, usage.source, readiness, &metrics, &logger, nullptr,
                          &logSampler, usage.supply, reserver});
  auto router = std::make_shared<Router>(service.router());
  const ServerEvents events = serverEvents(service, metrics, logger);
  const HttpServerOptions options = serverOptions(config, capacity, reserver != nullptr);
  HttpServer server(
      ioc, targets.tlsStore,
      [router, &service](const HttpRequest& r) {
        auto res = router->route(r);
        if (res.errorKind == "unknown-path" || res.errorKind == "method-not-allowed")
          service.countBadRequest(res.errorKind);
        return res;
      },
      options, events);
  if (auto err = server.listen(config.listen); !err.empty())
    return startupError(runtime.console, err);

  const auto drain = [&] {
    server.stop();
    drainThenStop(ioc, server, logger, std::chrono::steady_clock::now() + config.shutdownGrace,
                  std::make_shared<net::steady_timer>(ioc));
  };
  // One strand for the signal and the delay timer: a second signal may cancel the timer.
  const auto shutdownStrand = net::make_strand(ioc);
  net::steady_timer delay(shutdownStrand);
  net::signal_set signals(shutdownStrand, SIGINT, SIGTERM);
  signals.async_wait([&](boost::system::error_code ec, int signo) {
    if (ec) return;
    // Unready first, so the Service stops routing here; keep serving for --shutdown-delay
    // while the endpoint removal propagates, then stop accepting and drain. Meanwhile every
    // response closes its connection and idle ones close between requests: the apiserver
    // reaches the Service's ClusterIP, so only a new connection can land on another replica.
    readiness->setShuttingDown();
    server.beginDrain();
    logger.info("shutting down", {{"signal", signo},
                                  {"open", server.openConnections()},
                                  {"delayMs", config.shutdownDelay.count()},
                                  {"graceMs", config.shutdownGrace.count()}});
    if (config.shutdownDelay.count() <= 0) return drain();
    delay.expires_after(config.shutdownDelay);
    delay.async_wait([&](boost::system::error_code) { drain(); });
    // A second signal skips the rest of the delay (cancel runs the handler above at once).
    signals.async_wait([&](boost::system::error_code again, int) {
      if (!again) delay.cancel();
    });
  });

  // SIGHUP: load policies and certificates now (the default action would kill the server).
  net::signal_set hangup(shutdownStrand, SIGHUP);
  std::function<void()> awaitHangup = [&] {
    hangup.async_wait([&](boost::system::error_code ec, int) {
      if (ec) return;
      logger.info("SIGHUP: reloading policies and certificates now");
      reloader.requestReload();
      awaitHangup();
    });
  };
  awaitHangup();

  server.start();
  reloader.start();
  printBanner(runtime.console, config, *loaded.policy, server.port());
  logger.info("serving", {{"policy", loaded.policy->name},
                          {"usage", usage.description},
                          {"revision", loaded.policy->revision},
                          {"address", config.listen.host},
                          {"port", server.port()},
                          {"threads", threads},
                          {"maxConnections", options.maxConnections},
                          {"maxConnectionsPerSource", options.maxConnectionsPerSource},
                          {"maxBufferedBytes", options.maxBufferedBytes},
                          {"openFileLimit", capacity.openFiles},
                          {"logLevel", telemetry::logLevelName(config.logLevel)},
                          {"logSampleRate", config.logSampleRate},
                          {"certificateSerial", tls.serialHex},
                          {"clientCa", config.clientCa}});

  const auto connectionThrew = [&service, &logger](std::string_view what) {
    service.countBadRequest("connection-exception");
    logger.error("a connection's handler threw; that connection was closed", {{"error", what}});
  };
  std::vector<std::thread> pool;
  for (unsigned i = 1; i < threads; ++i)
    pool.emplace_back([&ioc, &connectionThrew] { runCatching(ioc, connectionThrew); });
  runCatching(ioc, connectionThrew);
  for (auto& t : pool) t.join();
  reloader.stop();
  logger.info("stopped");
  return 0;
}

}  // namespace gpua::server
