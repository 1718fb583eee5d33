#include "server/serve_config.hpp"

#include <charconv>
#include <cstdlib>
#include <map>
#include <sstream>

namespace gpua::server {

namespace {

// One setting: its flag, its environment variable, and how to store a value.
struct Setting {
  std::string flag;
  std::string env;
  std::string help;
  std::function<std::string(ServeConfig&, const std::string&)> apply;  // returns error or ""
};

// A flag without a value means "true"; "--in-cluster=false" still works.
bool isSwitch(const Setting& s) {
  return s.flag == "--in-cluster";
}

// Switch values: the flag alone means "true"; the environment says 1/true or 0/false.
std::optional<bool> parseBool(const std::string& text) {
  if (text == "1" || text == "true") return true;
  if (text == "0" || text == "false") return false;
  return std::nullopt;
}

std::optional<uint64_t> parseUnsigned(const std::string& text) {
  uint64_t v = 0;
  const auto* end = text.data() + text.size();
  auto [p, ec] = std::from_chars(text.data(), end, v);
  if (ec != std::errc() || p != end || text.empty()) return std::nullopt;
  return v;
}

// A number from 0 to 1 ("0.1", "1", ".5").
std::optional<double> parseFraction(const std::string& text) {
  double v = 0;
  const auto* end = text.data() + text.size();
  auto [p, ec] = std::from_chars(text.data(), end, v);
  if (ec != std::errc() || p != end || text.empty() || !(v >= 0.0 && v <= 1.0)) return std::nullopt;
  return v;
}

std::vector<std::string> splitComma(const std::string& text) {
  std::vector<std::string> out;
  std::stringstream ss(text);
  for (std::string part; std::getline(ss, part, ',');)
    if (!part.empty()) out.push_back(part);
  return out;
}

auto durationSetter(std::chrono::milliseconds ServeConfig::*field) {
  return [field](ServeConfig& c, const std::string& v) -> std::string {
    auto d = parseDuration(v);
    if (!d) return "invalid duration \"" + v + "\" (use e.g. 500ms, 10s, 2m)";
    c.*field = *d;
    return {};
  };
}

auto stringSetter(std::string ServeConfig::*field) {
  return [field](ServeConfig& c, const std::string& v) -> std::string {
    if (v.empty()) return "empty value";
    c.*field = v;
    return {};
  };
}

auto sizeSetter(std::optional<std::size_t> ServeConfig::*field, bool zeroAllowed) {
  return [field, zeroAllowed](ServeConfig& c, const std::string& v) -> std::string {
    auto n = parseByteSize(v);
    if (!n || (*n == 0 && !zeroAllowed))
      return "invalid value \"" + v + "\" (use e.g. 512, 64Ki, 8Mi)";
    c.*field = *n;
    return {};
  };
}

const std::vector<Setting>& settings() {
  static const std::vector<Setting> all = {
      {"--policies", "GPU_ADMISSION_POLICIES", "policy file or directory (repeatable, or a,b)",
       [](ServeConfig& c, const std::string& v) -> std::string {
         auto parts = splitComma(v);
         if (parts.empty()) return "empty value";
         c.policyPaths.insert(c.policyPaths.end(), parts.begin(), parts.end());
         return {};
       }},
      {"--tls-cert", "GPU_ADMISSION_TLS_CERT", "PEM server certificate chain",
       stringSetter(&ServeConfig::tlsCert)},
      {"--tls-key", "GPU_ADMISSION_TLS_KEY", "PEM private key of the certificate",
       stringSetter(&ServeConfig::tlsKey)},
      {"--client-ca", "GPU_ADMISSION_CLIENT_CA", "PEM CA bundle: require client certificates",
       stringSetter(&ServeConfig::clientCa)},
      {"--listen", "GPU_ADMISSION_LISTEN", "ADDR:PORT to listen on (default 0.0.0.0:8443)",
       [](ServeConfig& c, const std::string& v) -> std::string {
         auto a = parseListenAddress(v);
         if (!a) return "invalid address \"" + v + "\" (use ADDR:PORT, [V6]:PORT or :PORT)";
         c.listen = *a;
         return {};
       }},
      {"--threads", "GPU_ADMISSION_THREADS",
       "worker threads (default: the CPUs the process may use: affinity, cgroup quota)",
       [](ServeConfig& c, const std::string& v) -> std::string {
         auto n = parseUnsigned(v);
         if (!n || *n == 0 || *n > 1024) return "invalid thread count \"" + v + "\" (1-1024)";
         c.threads = static_cast<unsigned>(*n);
         return {};
       }},
      {"--shutdown-grace", "GPU_ADMISSION_SHUTDOWN_GRACE",
       "time to finish requests in flight on SIGTERM (default 10s)",
       durationSetter(&ServeConfig::shutdownGrace)},
      {"--reload-interval", "GPU_ADMISSION_RELOAD_INTERVAL",
       "how often policy and certificate files are checked for changes (default 1s)",
       durationSetter(&ServeConfig::reloadInterval)},
      {"--header-timeout", "GPU_ADMISSION_HEADER_TIMEOUT",
       "TLS handshake and request header read timeout (default 10s)",
       durationSetter(&ServeConfig::headerTimeout)},
      {"--body-timeout", "GPU_ADMISSION_BODY_TIMEOUT",
       "request body read and response write timeout (default 10s)",
       durationSetter(&ServeConfig::bodyTimeout)},
      {"--idle-timeout", "GPU_ADMISSION_IDLE_TIMEOUT",
       "idle keep-alive connection timeout (default 120s; keep above 90s)",
       durationSetter(&ServeConfig::idleTimeout)},
      {"--shutdown-delay", "GPU_ADMISSION_SHUTDOWN_DELAY",
       "on SIGTERM, report unready but keep serving this long first (default 5s; a second "
       "signal skips the rest)",
       durationSetter(&ServeConfig::shutdownDelay)},
      {"--max-connections", "GPU_ADMISSION_MAX_CONNECTIONS",
       "open connections at most; more are closed at once (default: from the memory limit)",
       sizeSetter(&ServeConfig::maxConnections, false)},
      {"--max-connections-per-source", "GPU_ADMISSION_MAX_CONNECTIONS_PER_SOURCE",
       "open connections from one client IP (default: half of --max-connections; 0 = off)",
       sizeSetter(&ServeConfig::maxConnectionsPerSource, true)},
      {"--max-buffered-bytes", "GPU_ADMISSION_MAX_BUFFERED_BYTES",
       "request body bytes buffered across all requests; over it: 503 (default: memory / 4)",
       sizeSetter(&ServeConfig::maxBufferedBytes, false)},
      {"--service-dns-name", "GPU_ADMISSION_SERVICE_DNS_NAME",
       "name the apiserver verifies (<service>.<namespace>.svc): warn if the cert lacks it",
       stringSetter(&ServeConfig::serviceDnsName)},
      {"--kubeconfig", "GPU_ADMISSION_KUBECONFIG",
       "watch GPU usage in the cluster of this kubeconfig (for quotas)",
       stringSetter(&ServeConfig::kubeconfig)},
      {"--kube-context", "GPU_ADMISSION_KUBE_CONTEXT",
       "kubeconfig context to use (default: current-context)",
       stringSetter(&ServeConfig::kubeContext)},
      {"--in-cluster", "GPU_ADMISSION_IN_CLUSTER",
       "watch GPU usage with the pod's service account (env: 1 or true)",
       [](ServeConfig& c, const std::string& v) -> std::string {
         auto b = parseBool(v);
         if (!b) return "invalid value \"" + v + "\" (use 1, true, 0 or false)";
         c.inCluster = *b;
         return {};
       }},
      {"--metrics-namespace-label", "GPU_ADMISSION_METRICS_NAMESPACE_LABEL",
       "label requests_total by namespace: true (default) or false, for many namespaces",
       [](ServeConfig& c, const std::string& v) -> std::string {
         auto b = parseBool(v);
         if (!b) return "invalid value \"" + v + "\" (use 1, true, 0 or false)";
         c.metricsNamespaceLabel = *b;
         return {};
       }},
      {"--usage-from", "GPU_ADMISSION_USAGE_FROM",
       "fixed GPU usage from kubectl get -o json files (FILE[,FILE]; demos, offline)",
       [](ServeConfig& c, const std::string& v) -> std::string {
         auto parts = splitComma(v);
         if (parts.empty()) return "empty value";
         c.usageFiles.insert(c.usageFiles.end(), parts.begin(), parts.end());
         return {};
       }},
      {"--sync-grace", "GPU_ADMISSION_SYNC_GRACE",
       "with quotaUnavailable failOpen, ready this long after start even if cluster state "
       "never synced (default 30s)",
       durationSetter(&ServeConfig::syncGrace)},
      {"--quota-unavailable-grace", "GPU_ADMISSION_QUOTA_UNAVAILABLE_GRACE",
       "how long quotas stay live while the watch reconnects (default 30s)",
       [](ServeConfig& c, const std::string& v) -> std::string {
         auto d = parseDuration(v);
         if (!d) return "invalid duration \"" + v + "\" (use e.g. 500ms, 10s, 2m)";
         c.quotaUnavailableGrace = *d;
         return {};
       }},
      {"--quota-reservations", "GPU_ADMISSION_QUOTA_RESERVATIONS",
       "reserve quota usage in the apiserver so replicas share quotas: true (default) or false",
       [](ServeConfig& c, const std::string& v) -> std::string {
         auto b = parseBool(v);
         if (!b) return "invalid value \"" + v + "\" (use 1, true, 0 or false)";
         c.quotaReservations = *b;
         return {};
       }},
      {"--native-offload", "GPU_ADMISSION_NATIVE_OFFLOAD",
       "leave the rules `compile --to native` compiles to the apiserver's compiled policies, "
       "installed beside the webhook: true or false (default)",
       [](ServeConfig& c, const std::string& v) -> std::string {
         auto b = parseBool(v);
         if (!b) return "invalid value \"" + v + "\" (use 1, true, 0 or false)";
         c.nativeOffload = *b;
         return {};
       }},
      {"--reservation-namespace", "GPU_ADMISSION_RESERVATION_NAMESPACE",
       "namespace of the quota reservation ConfigMap (default with --in-cluster: the pod's)",
       stringSetter(&ServeConfig::reservationNamespace)},
      {"--quota-reservation-ttl", "GPU_ADMISSION_QUOTA_RESERVATION_TTL",
       "how long a reservation no pod claims counts (default 90s; above the unavailable grace)",
       durationSetter(&ServeConfig::reservationTtl)},
      {"--quota-reservation-timeout", "GPU_ADMISSION_QUOTA_RESERVATION_TIMEOUT",
       "time one admission may spend reserving (default 3s; below the webhook's timeout)",
       durationSetter(&ServeConfig::reservationTimeout)},
      {"--log-level", "GPU_ADMISSION_LOG_LEVEL",
       "debug, info, warn or error (default info; pods left alone are logged at debug)",
       [](ServeConfig& c, const std::string& v) -> std::string {
         auto level = telemetry::parseLogLevel(v);
         if (!level) return "invalid log level \"" + v + "\" (use debug, info, warn or error)";
         c.logLevel = *level;
         return {};
       }},
      {"--log-sample-rate", "GPU_ADMISSION_LOG_SAMPLE_RATE",
       "share of routine decision lines logged, 0-1 (default 1; denials always logged)",
       [](ServeConfig& c, const std::string& v) -> std::string {
         auto rate = parseFraction(v);
         if (!rate) return "invalid sample rate \"" + v + "\" (a number from 0 to 1)";
         c.logSampleRate = *rate;
         return {};
       }},
  };
  return all;
}

const Setting* findFlag(const std::string& flag) {
  for (const auto& s : settings())
    if (s.flag == flag) return &s;
  return nullptr;
}

// A reservation must outlive the longest a replica's watch may lag with quotas still live, or
// that replica would count neither the pod nor its reservation.
std::string validateReservations(const ServeConfig& c) {
  if (c.reservationTimeout.count() <= 0) return "--quota-reservation-timeout must be positive";
  const auto grace = c.quotaUnavailableGrace.value_or(std::chrono::milliseconds(30'000));
  if (c.reservationTtl <= grace)
    return "--quota-reservation-ttl (" + std::to_string(c.reservationTtl.count()) +
           "ms) must exceed --quota-unavailable-grace (" + std::to_string(grace.count()) + "ms)";
  return {};
}

// One usage source at most: two would disagree about what is in use.
std::string validateUsageSource(const ServeConfig& c) {
  const int sources =
      (c.inCluster ? 1 : 0) + (c.kubeconfig.empty() ? 0 : 1) + (c.usageFiles.empty() ? 0 : 1);
  if (sources > 1) return "choose one usage source: --kubeconfig, --in-cluster or --usage-from";
  if (!c.kubeContext.empty() && c.kubeconfig.empty()) return "--kube-context needs --kubeconfig";
  if (c.quotaUnavailableGrace && !c.watchesCluster())
    return "--quota-unavailable-grace needs --kubeconfig or --in-cluster";
  if (!c.reservationNamespace.empty() && !c.watchesCluster())
    return "--reservation-namespace needs --kubeconfig or --in-cluster";
  return validateReservations(c);
}

std::string validate(const ServeConfig& c) {
  if (c.policyPaths.empty()) return "missing --policies (or GPU_ADMISSION_POLICIES)";
  if (c.tlsCert.empty()) return "missing --tls-cert (or GPU_ADMISSION_TLS_CERT)";
  if (c.tlsKey.empty()) return "missing --tls-key (or GPU_ADMISSION_TLS_KEY)";
  if (c.reloadInterval.count() <= 0) return "--reload-interval must be positive";
  if (c.headerTimeout.count() <= 0 || c.bodyTimeout.count() <= 0 || c.idleTimeout.count() <= 0)
    return "timeouts must be positive";
  if (c.maxBufferedBytes && *c.maxBufferedBytes < c.maxBodyBytes)
    return "--max-buffered-bytes must hold at least one largest request (" +
           std::to_string(c.maxBodyBytes) + " bytes)";
  return validateUsageSource(c);
}

}  // namespace

std::optional<std::chrono::milliseconds> parseDuration(const std::string& text) {
  static const std::map<std::string, int64_t> kUnits = {
      {"ms", 1}, {"s", 1000}, {"m", 60'000}, {"", 1000}};
  std::size_t digits = 0;
  while (digits < text.size() && text[digits] >= '0' && text[digits] <= '9') ++digits;
  if (digits == 0 || digits > 12) return std::nullopt;
  const auto unit = kUnits.find(text.substr(digits));
  if (unit == kUnits.end()) return std::nullopt;
  const auto n = parseUnsigned(text.substr(0, digits));
  if (!n) return std::nullopt;
  return std::chrono::milliseconds(static_cast<int64_t>(*n) * unit->second);
}

std::optional<std::size_t> parseByteSize(const std::string& text) {
  static const std::map<std::string, uint64_t> kUnits = {
      {"", 1}, {"Ki", uint64_t{1} << 10}, {"Mi", uint64_t{1} << 20}, {"Gi", uint64_t{1} << 30}};
  std::size_t digits = 0;
  while (digits < text.size() && text[digits] >= '0' && text[digits] <= '9') ++digits;
  if (digits == 0 || digits > 12) return std::nullopt;
  const auto unit = kUnits.find(text.substr(digits));
  const auto n = parseUnsigned(text.substr(0, digits));
  if (unit == kUnits.end() || !n) return std::nullopt;
  return static_cast<std::size_t>(*n * unit->second);
}

std::optional<ListenAddress> parseListenAddress(const std::string& text) {
  const auto colon = text.rfind(':');
  if (colon == std::string::npos) return std::nullopt;
  std::string host = text.substr(0, colon);
  const auto port = parseUnsigned(text.substr(colon + 1));
  if (!port || *port > 65535) return std::nullopt;
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']')
    host = host.substr(1, host.size() - 2);
  else if (host.find(':') != std::string::npos)
    return std::nullopt;  // a bare IPv6 address is ambiguous: require brackets
  if (host.empty()) host = "0.0.0.0";
  return ListenAddress{host, static_cast<uint16_t>(*port)};
}

ConfigResult parseServeConfig(int argc, const char* const* argv, const EnvLookup& env) {
  ServeConfig config;
  std::vector<std::pair<const Setting*, std::string>> flags;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--help" || arg == "-h") {
      config.help = true;
      continue;
    }
    std::optional<std::string> value;
    if (auto eq = arg.find('='); arg.rfind("--", 0) == 0 && eq != std::string::npos) {
      value = arg.substr(eq + 1);
      arg = arg.substr(0, eq);
    }
    const Setting* s = findFlag(arg);
    if (!s) return {std::nullopt, "unknown flag \"" + arg + "\" (see --help)"};
    if (!value && isSwitch(*s)) value = "true";
    if (!value) {
      if (i + 1 >= argc) return {std::nullopt, arg + ": missing value"};
      value = argv[++i];
    }
    flags.emplace_back(s, *value);
  }
  if (config.help) return {config, {}};

  // Flags win: a variable is read only when its flag is absent, so a stale variable in a
  // container spec cannot break a command line that overrides it.
  for (const auto& s : settings()) {
    bool flagged = false;
    for (const auto& [f, _] : flags) flagged = flagged || f == &s;
    if (flagged) continue;
    if (auto v = env(s.env); v && !v->empty()) {
      if (auto err = s.apply(config, *v); !err.empty()) return {std::nullopt, s.env + ": " + err};
    }
  }
  for (const auto& [s, value] : flags) {
    if (auto err = s->apply(config, value); !err.empty())
      return {std::nullopt, s->flag + ": " + err};
  }
  if (auto err = validate(config); !err.empty()) return {std::nullopt, err};
  return {config, {}};
}

EnvLookup processEnv() {
  return [](const std::string& name) -> std::optional<std::string> {
    const char* v = std::getenv(name.c_str());
    if (!v) return std::nullopt;
    return std::string(v);
  };
}

std::string serveUsage() {
  std::string out =
      "usage: gpu-admission serve --policies DIR --tls-cert FILE --tls-key FILE [options]\n\n"
      "Serves /mutate, /validate, /admit, /healthz, /readyz and /metrics over TLS.\n"
      "Each flag can also be set by its environment variable; flags win.\n\n";
  for (const auto& s : settings()) {
    // A flag too long for the column gets its help on the next line.
    const std::string pad =
        s.flag.size() < 18 ? std::string(18 - s.flag.size(), ' ') : "\n" + std::string(20, ' ');
    out += "  " + s.flag + pad + s.help + "\n" + std::string(20, ' ') + "env: " + s.env + "\n";
  }
  return out +
         "\nWithout --kubeconfig, --in-cluster or --usage-from, GPU usage is unknown and quota\n"
         "checks follow the policy's quotaUnavailable (failOpen admits with a warning).\n";
}

}  // namespace gpua::server
