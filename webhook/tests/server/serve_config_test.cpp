#include "server/serve_config.hpp"

#include <gtest/gtest.h>

#include <map>
#include <vector>

namespace gpua::server {
namespace {

using Env = std::map<std::string, std::string>;

ConfigResult parse(std::vector<const char*> args, const Env& env = {}) {
  args.insert(args.begin(), "serve");
  return parseServeConfig(static_cast<int>(args.size()), args.data(),
                          [&env](const std::string& k) -> std::optional<std::string> {
                            auto it = env.find(k);
                            if (it == env.end()) return std::nullopt;
                            return it->second;
                          });
}

TEST(ServeConfig, ParsesEveryFlag) {
  auto r = parse({"--policies",
                  "p1",
                  "--policies=p2,p3",
                  "--tls-cert",
                  "c.crt",
                  "--tls-key",
                  "c.key",
                  "--client-ca",
                  "ca.crt",
                  "--listen",
                  "127.0.0.1:0",
                  "--threads",
                  "3",
                  "--shutdown-grace",
                  "2s",
                  "--reload-interval",
                  "200ms",
                  "--header-timeout",
                  "1s",
                  "--body-timeout",
                  "3s",
                  "--idle-timeout",
                  "2m"});
  ASSERT_TRUE(r.config) << r.error;
  const auto& c = *r.config;
  EXPECT_EQ(c.policyPaths, (std::vector<std::string>{"p1", "p2", "p3"}));
  EXPECT_EQ(c.tlsCert, "c.crt");
  EXPECT_EQ(c.tlsKey, "c.key");
  EXPECT_EQ(c.clientCa, "ca.crt");
  EXPECT_EQ(c.listen.host, "127.0.0.1");
  EXPECT_EQ(c.listen.port, 0);
  EXPECT_EQ(c.threads, 3u);
  EXPECT_EQ(c.shutdownGrace.count(), 2000);
  EXPECT_EQ(c.reloadInterval.count(), 200);
  EXPECT_EQ(c.headerTimeout.count(), 1000);
  EXPECT_EQ(c.bodyTimeout.count(), 3000);
  EXPECT_EQ(c.idleTimeout.count(), 120000);
}

TEST(ServeConfig, DefaultsKeepIdleAboveTheApiserversNinetySeconds) {
  auto r = parse({"--policies", "p", "--tls-cert", "c", "--tls-key", "k"});
  ASSERT_TRUE(r.config) << r.error;
  EXPECT_GT(r.config->idleTimeout.count(), 90'000);
  EXPECT_EQ(r.config->maxBodyBytes, 8u << 20);
  EXPECT_EQ(r.config->listen.port, 8443);
  EXPECT_TRUE(r.config->clientCa.empty());
}

TEST(ServeConfig, ReadsTheEnvironment) {
  auto r = parse({}, {{"GPU_ADMISSION_POLICIES", "/etc/p"},
                      {"GPU_ADMISSION_TLS_CERT", "/tls/tls.crt"},
                      {"GPU_ADMISSION_TLS_KEY", "/tls/tls.key"},
                      {"GPU_ADMISSION_LISTEN", ":9443"},
                      {"GPU_ADMISSION_THREADS", "2"}});
  ASSERT_TRUE(r.config) << r.error;
  EXPECT_EQ(r.config->policyPaths, std::vector<std::string>{"/etc/p"});
  EXPECT_EQ(r.config->tlsCert, "/tls/tls.crt");
  EXPECT_EQ(r.config->listen.host, "0.0.0.0");
  EXPECT_EQ(r.config->listen.port, 9443);
  EXPECT_EQ(r.config->threads, 2u);
}

TEST(ServeConfig, FlagsWinOverTheEnvironmentEvenWhenTheVariableIsInvalid) {
  auto r = parse({"--policies", "flag-p", "--listen", "127.0.0.1:1"},
                 {{"GPU_ADMISSION_POLICIES", "env-p"},
                  {"GPU_ADMISSION_LISTEN", "garbage"},
                  {"GPU_ADMISSION_TLS_CERT", "c"},
                  {"GPU_ADMISSION_TLS_KEY", "k"}});
  ASSERT_TRUE(r.config) << r.error;
  EXPECT_EQ(r.config->policyPaths, std::vector<std::string>{"flag-p"});
  EXPECT_EQ(r.config->listen.port, 1);
}

TEST(ServeConfig, ErrorsNameTheFlagOrVariable) {
  EXPECT_NE(parse({"--policies", "p", "--tls-cert", "c"}).error.find("--tls-key"),
            std::string::npos);
  EXPECT_NE(parse({"--bogus"}).error.find("unknown flag \"--bogus\""), std::string::npos);
  EXPECT_NE(parse({"--listen"}).error.find("--listen: missing value"), std::string::npos);
  EXPECT_NE(parse({"--policies", "p", "--tls-cert", "c", "--tls-key", "k", "--listen", "8443"})
                .error.find("--listen: invalid address"),
            std::string::npos);
  EXPECT_NE(parse({}, {{"GPU_ADMISSION_THREADS", "zero"}}).error.find("GPU_ADMISSION_THREADS"),
            std::string::npos);
  EXPECT_NE(parse({"--shutdown-grace", "10 years"}).error.find("invalid duration"),
            std::string::npos);
}

TEST(ServeConfig, HelpNeedsNoOtherSetting) {
  auto r = parse({"--help"});
  ASSERT_TRUE(r.config);
  EXPECT_TRUE(r.config->help);
  EXPECT_NE(serveUsage().find("GPU_ADMISSION_TLS_CERT"), std::string::npos);
  EXPECT_NE(serveUsage().find("GPU_ADMISSION_KUBECONFIG"), std::string::npos);
  EXPECT_NE(serveUsage().find("--shutdown-delay"), std::string::npos);
}

TEST(ServeConfig, LogLevelAndSampleRateFromFlagsOrEnvironment) {
  auto d = parse({"--policies", "p", "--tls-cert", "c", "--tls-key", "k"});
  ASSERT_TRUE(d.config) << d.error;
  EXPECT_EQ(d.config->logLevel, telemetry::LogLevel::Info);
  EXPECT_EQ(d.config->logSampleRate, 1.0);

  const Env env = {{"GPU_ADMISSION_POLICIES", "p"},
                   {"GPU_ADMISSION_TLS_CERT", "c"},
                   {"GPU_ADMISSION_TLS_KEY", "k"},
                   {"GPU_ADMISSION_LOG_LEVEL", "warn"},
                   {"GPU_ADMISSION_LOG_SAMPLE_RATE", "0.25"}};
  auto e = parse({}, env);
  ASSERT_TRUE(e.config) << e.error;
  EXPECT_EQ(e.config->logLevel, telemetry::LogLevel::Warn);
  EXPECT_EQ(e.config->logSampleRate, 0.25);

  auto f = parse({"--log-level", "debug", "--log-sample-rate=0"}, env);
  ASSERT_TRUE(f.config) << f.error;
  EXPECT_EQ(f.config->logLevel, telemetry::LogLevel::Debug) << "the flag wins";
  EXPECT_EQ(f.config->logSampleRate, 0.0);

  EXPECT_NE(parse({"--log-level", "verbose"}).error.find("--log-level: invalid log level"),
            std::string::npos);
  for (const char* bad : {"1.5", "-0.1", "half", "", "nan"})
    EXPECT_NE(parse({"--log-sample-rate", bad}).error.find("--log-sample-rate"), std::string::npos)
        << bad;
  EXPECT_NE(parse({}, {{"GPU_ADMISSION_LOG_LEVEL", "loud"}}).error.find("GPU_ADMISSION_LOG_LEVEL"),
            std::string::npos);
  EXPECT_NE(serveUsage().find("GPU_ADMISSION_LOG_LEVEL"), std::string::npos);
}

TEST(ServeConfig, UsageSourceFlags) {
  auto r = parse({"--policies", "p", "--tls-cert", "c", "--tls-key", "k", "--kubeconfig",
                  "/home/me/.kube/config", "--kube-context", "staging", "--quota-unavailable-grace",
                  "2s", "--shutdown-delay", "5s"});
  ASSERT_TRUE(r.config) << r.error;
  EXPECT_EQ(r.config->kubeconfig, "/home/me/.kube/config");
  EXPECT_EQ(r.config->kubeContext, "staging");
  ASSERT_TRUE(r.config->quotaUnavailableGrace);
  EXPECT_EQ(r.config->quotaUnavailableGrace->count(), 2000);
  EXPECT_EQ(r.config->shutdownDelay.count(), 5000);
  EXPECT_TRUE(r.config->watchesCluster());
  EXPECT_FALSE(r.config->inCluster);

  r = parse({"--policies", "p", "--tls-cert", "c", "--tls-key", "k", "--usage-from",
             "pods.json,ns.json"});
  ASSERT_TRUE(r.config) << r.error;
  EXPECT_EQ(r.config->usageFiles, (std::vector<std::string>{"pods.json", "ns.json"}));
  EXPECT_FALSE(r.config->watchesCluster());
}

TEST(ServeConfig, MetricsNamespaceLabelSwitch) {
  auto r = parse({"--policies", "p", "--tls-cert", "c", "--tls-key", "k"});
  ASSERT_TRUE(r.config) << r.error;
  EXPECT_TRUE(r.config->metricsNamespaceLabel);
  r = parse(
      {"--policies", "p", "--tls-cert", "c", "--tls-key", "k", "--metrics-namespace-label=false"});
  ASSERT_TRUE(r.config) << r.error;
  EXPECT_FALSE(r.config->metricsNamespaceLabel);
  r = parse({"--policies", "p", "--tls-cert", "c", "--tls-key", "k", "--metrics-namespace-label",
             "maybe"});
  EXPECT_FALSE(r.config);
  EXPECT_NE(r.error.find("--metrics-namespace-label"), std::string::npos) << r.error;
}

TEST(ServeConfig, NoUsageSourceByDefaultEvenInsideAPod) {
  // KUBERNETES_SERVICE_HOST alone does not turn the watch on: in-cluster is explicit.
  auto r = parse({"--policies", "p", "--tls-cert", "c", "--tls-key", "k"},
                 {{"KUBERNETES_SERVICE_HOST", "10.96.0.1"}});
  ASSERT_TRUE(r.config) << r.error;
  EXPECT_FALSE(r.config->watchesCluster());
  EXPECT_TRUE(r.config->usageFiles.empty());
  EXPECT_EQ(r.config->shutdownDelay.count(), 5000) << "a safe delay unless told otherwise";
}

TEST(ServeConfig, InClusterIsASwitchOrAnEnvironmentBoolean) {
  auto r = parse({"--in-cluster", "--policies", "p", "--tls-cert", "c", "--tls-key", "k"});
  ASSERT_TRUE(r.config) << r.error;
  EXPECT_TRUE(r.config->inCluster);
  r = parse({}, {{"GPU_ADMISSION_POLICIES", "p"},
                 {"GPU_ADMISSION_TLS_CERT", "c"},
                 {"GPU_ADMISSION_TLS_KEY", "k"},
                 {"GPU_ADMISSION_IN_CLUSTER", "1"},
                 {"GPU_ADMISSION_SHUTDOWN_DELAY", "5s"}});
  ASSERT_TRUE(r.config) << r.error;
  EXPECT_TRUE(r.config->inCluster);
  EXPECT_EQ(r.config->shutdownDelay.count(), 5000);
  r = parse({"--in-cluster=false", "--policies", "p", "--tls-cert", "c", "--tls-key", "k"},
            {{"GPU_ADMISSION_IN_CLUSTER", "true"}});
  ASSERT_TRUE(r.config) << r.error;
  EXPECT_FALSE(r.config->inCluster) << "the flag wins";
  EXPECT_NE(parse({}, {{"GPU_ADMISSION_IN_CLUSTER", "yes"}}).error.find("GPU_ADMISSION_IN_CLUSTER"),
            std::string::npos);
}

TEST(ServeConfig, UsageSourceConflictsAreErrors) {
  const std::vector<const char*> base{"--policies", "p", "--tls-cert", "c", "--tls-key", "k"};
  auto with = [&](std::vector<const char*> extra) {
    auto all = base;
    all.insert(all.end(), extra.begin(), extra.end());
    return parse(all).error;
  };
  EXPECT_NE(with({"--in-cluster", "--kubeconfig", "k.yaml"}).find("choose one usage source"),
            std::string::npos);
  EXPECT_NE(with({"--kubeconfig", "k.yaml", "--usage-from", "p.json"}).find("choose one"),
            std::string::npos);
  EXPECT_NE(with({"--in-cluster", "--kube-context", "x"}).find("--kube-context needs --kubeconfig"),
            std::string::npos);
  EXPECT_NE(with({"--usage-from", "p.json", "--quota-unavailable-grace", "1s"})
                .find("--quota-unavailable-grace needs"),
            std::string::npos);
  EXPECT_NE(with({"--quota-unavailable-grace", "soon"}).find("invalid duration"),
            std::string::npos);
}

TEST(ServeConfig, QuotaReservationFlags) {
  auto r = parse({"--policies", "p", "--tls-cert", "c", "--tls-key", "k", "--kubeconfig", "k.yaml",
                  "--reservation-namespace", "gpu-admission", "--quota-reservation-ttl", "2m",
                  "--quota-reservation-timeout", "1500ms"});
  ASSERT_TRUE(r.config) << r.error;
  EXPECT_TRUE(r.config->quotaReservations);
  EXPECT_EQ(r.config->reservationNamespace, "gpu-admission");
  EXPECT_EQ(r.config->reservationTtl.count(), 120'000);
  EXPECT_EQ(r.config->reservationTimeout.count(), 1'500);
  r = parse({"--policies", "p", "--tls-cert", "c", "--tls-key", "k", "--in-cluster"},
            {{"GPU_ADMISSION_QUOTA_RESERVATIONS", "false"}});
  ASSERT_TRUE(r.config) << r.error;
  EXPECT_FALSE(r.config->quotaReservations);
  EXPECT_EQ(r.config->reservationTtl.count(), 90'000);  // the defaults
  EXPECT_EQ(r.config->reservationTimeout.count(), 3'000);
}

TEST(ServeConfig, QuotaReservationMistakesAreErrors) {
  const std::vector<const char*> base{"--policies", "p", "--tls-cert", "c", "--tls-key", "k"};
  auto with = [&](std::vector<const char*> extra) {
    auto all = base;
    all.insert(all.end(), extra.begin(), extra.end());
    return parse(all).error;
  };
  EXPECT_EQ(with({"--reservation-namespace", "x"}),
            "--reservation-namespace needs --kubeconfig or --in-cluster");
  EXPECT_EQ(with({"--in-cluster", "--quota-reservation-ttl", "30s"}),
            "--quota-reservation-ttl (30000ms) must exceed --quota-unavailable-grace (30000ms)");
  EXPECT_EQ(with({"--in-cluster", "--quota-unavailable-grace", "5s", "--quota-reservation-ttl",
                  "6s", "--quota-reservation-timeout", "0s"}),
            "--quota-reservation-timeout must be positive");
  EXPECT_NE(with({"--quota-reservations", "maybe"}).find("invalid value \"maybe\""),
            std::string::npos);
}

TEST(ListenAddress, AcceptsV4V6AndPortOnly) {
  auto v4 = parseListenAddress("10.0.0.1:8443");
  ASSERT_TRUE(v4);
  EXPECT_EQ(v4->host, "10.0.0.1");
  auto v6 = parseListenAddress("[::1]:443");
  ASSERT_TRUE(v6);
  EXPECT_EQ(v6->host, "::1");
  EXPECT_EQ(v6->port, 443);
  EXPECT_FALSE(parseListenAddress("::1:443"));
  EXPECT_FALSE(parseListenAddress("host:99999"));
  EXPECT_FALSE(parseListenAddress("host:"));
  EXPECT_FALSE(parseListenAddress("host"));
}

TEST(Duration, UnitsAndBareSeconds) {
  EXPECT_EQ(parseDuration("250ms")->count(), 250);
  EXPECT_EQ(parseDuration("10s")->count(), 10'000);
  EXPECT_EQ(parseDuration("2m")->count(), 120'000);
  EXPECT_EQ(parseDuration("7")->count(), 7'000);
  EXPECT_FALSE(parseDuration("s"));
  EXPECT_FALSE(parseDuration("-1s"));
  EXPECT_FALSE(parseDuration("1h"));
}

}  // namespace
}  // namespace gpua::server

namespace gpua::server {
namespace {

// The apiserver waits at most 30 s (5 s in deploy/), so a slow body must
// not hold a connection for 30 s.
TEST(ServeConfig, BodyTimeoutDefaultsToAtMostTenSeconds) {
  auto r = parse({"--policies", "p", "--tls-cert", "c", "--tls-key", "k"});
  ASSERT_TRUE(r.config) << r.error;
  EXPECT_LE(r.config->bodyTimeout.count(), 10'000);
  EXPECT_GT(r.config->bodyTimeout.count(), 0);
}

TEST(ServeConfig, ResourceLimitFlagsAndTheirDefaults) {
  auto d = parse({"--policies", "p", "--tls-cert", "c", "--tls-key", "k"});
  ASSERT_TRUE(d.config) << d.error;
  EXPECT_FALSE(d.config->maxConnections) << "sized to the memory limit at start-up";
  EXPECT_FALSE(d.config->maxBufferedBytes);
  EXPECT_EQ(d.config->serviceDnsName, "");

  auto r = parse({"--policies", "p", "--tls-cert", "c", "--tls-key", "k", "--max-connections",
                  "500", "--max-connections-per-source=0", "--max-buffered-bytes", "64Mi",
                  "--service-dns-name", "gpu-admission.gpu-admission.svc"});
  ASSERT_TRUE(r.config) << r.error;
  EXPECT_EQ(r.config->maxConnections, 500u);
  EXPECT_EQ(r.config->maxConnectionsPerSource, 0u);
  EXPECT_EQ(r.config->maxBufferedBytes, std::size_t{64} << 20);
  EXPECT_EQ(r.config->serviceDnsName, "gpu-admission.gpu-admission.svc");

  auto env = parse({"--policies", "p", "--tls-cert", "c", "--tls-key", "k"},
                   {{"GPU_ADMISSION_MAX_CONNECTIONS", "42"}});
  ASSERT_TRUE(env.config) << env.error;
  EXPECT_EQ(env.config->maxConnections, 42u);

  EXPECT_NE(
      parse({"--policies", "p", "--tls-cert", "c", "--tls-key", "k", "--max-connections", "0"})
          .error.find("--max-connections"),
      std::string::npos);
  EXPECT_NE(
      parse({"--policies", "p", "--tls-cert", "c", "--tls-key", "k", "--max-buffered-bytes", "1Mi"})
          .error.find("at least one largest request"),
      std::string::npos);
}

TEST(ByteSize, BinarySuffixes) {
  EXPECT_EQ(parseByteSize("512"), 512u);
  EXPECT_EQ(parseByteSize("64Ki"), 65536u);
  EXPECT_EQ(parseByteSize("8Mi"), std::size_t{8} << 20);
  EXPECT_EQ(parseByteSize("1Gi"), std::size_t{1} << 30);
  EXPECT_FALSE(parseByteSize("8MB"));
  EXPECT_FALSE(parseByteSize("Mi"));
  EXPECT_FALSE(parseByteSize("-1"));
}

}  // namespace
}  // namespace gpua::server
