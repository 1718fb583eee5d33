// Settings of `gpu-admission serve`, from command-line flags and GPU_ADMISSION_* environment
// variables (for containers). Flags win over the environment; the environment wins over
// defaults. Parsing is pure: the caller passes the environment lookup, so tests need no setenv.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "telemetry/log_level.hpp"

namespace gpua::server {

struct ListenAddress {
  std::string host;   // "127.0.0.1", "::", "0.0.0.0"
  uint16_t port = 0;  // 0 = pick a free port (printed at startup)
};

struct ServeConfig {
  std::vector<std::string> policyPaths;  // --policies (repeatable; comma-separated also accepted)
  std::string tlsCert;
  std::string tlsKey;
  std::string clientCa;  // empty = no client certificate verification
  ListenAddress listen{"0.0.0.0", 8443};
  unsigned threads = 0;  // 0 = the CPUs the process may use (affinity mask and cgroup quota)
  std::chrono::milliseconds shutdownGrace{10'000};
  std::chrono::milliseconds reloadInterval{1'000};
  std::chrono::milliseconds headerTimeout{10'000};
  // The apiserver gives up after the webhook's timeoutSeconds (at most 30 s, 5 s in
  // deploy/): a body still arriving after 10 s only holds a connection and its buffer.
  std::chrono::milliseconds bodyTimeout{10'000};
  // Must exceed the apiserver's 90 s idle keep-alive, or it reuses sockets we already closed.
  std::chrono::milliseconds idleTimeout{120'000};
  // The apiserver refuses request bodies over 3 MiB (MaxRequestBodyBytes = 3 * 1024 * 1024 in
  // staging/src/k8s.io/apiserver/pkg/server/config.go), so one object is at most 3 MiB; an
  // UPDATE review carries object and oldObject, hence 2 x 3 MiB plus the envelope < 8 MiB.
  std::size_t maxBodyBytes = 8u << 20;
  // Unset: sized to the cgroup memory limit (process_resources.hpp).
  std::optional<std::size_t> maxConnections;           // open connections, all sources
  std::optional<std::size_t> maxConnectionsPerSource;  // open connections from one IP; 0 = off
  std::optional<std::size_t> maxBufferedBytes;         // request bytes being read, all requests
  // The DNS name the apiserver verifies (<service>.<namespace>.svc): a certificate whose SANs
  // lack it is served, with a warning. Empty: not checked.
  std::string serviceDnsName;
  // On SIGTERM, /readyz answers 503 for this long while requests are still served, so the
  // endpoint removal reaches every apiserver before the listener closes. 0 = close at once
  // (a second signal also skips the rest of the delay).
  std::chrono::milliseconds shutdownDelay{5'000};

  // Where live GPU usage comes from (at most one). None: an empty snapshot with
  // available=false, so quota checks follow the policy's quotaUnavailable.
  std::string kubeconfig;   // --kubeconfig: list+watch the cluster of this kubeconfig
  std::string kubeContext;  // --kube-context: a context of the kubeconfig (default: current)
  bool inCluster = false;   // --in-cluster: the pod's service account (explicit, never guessed)
  std::vector<std::string> usageFiles;  // --usage-from: a fixed snapshot (kubectl get -o json)
  // With quotaUnavailable: failOpen, /readyz stops waiting for the first sync of cluster state
  // this long after start (a forbidden pod list or an unreachable API must not keep every
  // replica unready, which makes the fail-closed pod webhook refuse every pod).
  std::chrono::milliseconds syncGrace{30'000};
  // How long quotas stay live while the watch reconnects (cluster sources only).
  std::optional<std::chrono::milliseconds> quotaUnavailableGrace;
  // Quota reservations shared by the replicas (server/quota_reservation.hpp, docs/quotas.md),
  // kept in a ConfigMap of this namespace. Empty: with --in-cluster, the pod's own namespace;
  // with --kubeconfig, no reservations.
  std::string reservationNamespace;
  bool quotaReservations = true;  // --quota-reservations false: judge the watch's usage alone
  // --native-offload: the compiled policies (`compile --to native`) are installed and enforce
  // the rules they compile; the webhook leaves those to them (docs/native-backstop.md, offload).
  bool nativeOffload = false;
  std::chrono::milliseconds reservationTtl{90'000};
  std::chrono::milliseconds reservationTimeout{3'000};
  // The JSON log: lines below this level are not written. At info, denials, violations and
  // mutations are logged; a pod left alone is logged at debug.
  telemetry::LogLevel logLevel = telemetry::LogLevel::Info;
  // Share of routine decision lines kept (mutations, pods left alone), 0 to 1. Denials,
  // violations, warnings and errors are always logged.
  double logSampleRate = 1.0;
  // --metrics-namespace-label: requests_total carries the namespace (one series per namespace).
  bool metricsNamespaceLabel = true;
  bool help = false;

  bool watchesCluster() const { return inCluster || !kubeconfig.empty(); }
};

using EnvLookup = std::function<std::optional<std::string>(const std::string& name)>;

struct ConfigResult {
  std::optional<ServeConfig> config;  // absent when `error` is set
  std::string error;                  // one line naming the flag/variable and the problem
};

// Parses argv (argv[0] is the command name) plus the environment.
ConfigResult parseServeConfig(int argc, const char* const* argv, const EnvLookup& env);

// The real process environment.
EnvLookup processEnv();

// "ADDR:PORT", "[v6]:PORT" or ":PORT" (all interfaces).
std::optional<ListenAddress> parseListenAddress(const std::string& text);

// "65536", "64Ki", "8Mi", "1Gi".
std::optional<std::size_t> parseByteSize(const std::string& text);

// "250ms", "10s", "2m", or a bare number of seconds.
std::optional<std::chrono::milliseconds> parseDuration(const std::string& text);

// Flags and environment variables, for --help and docs.
std::string serveUsage();

}  // namespace gpua::server
