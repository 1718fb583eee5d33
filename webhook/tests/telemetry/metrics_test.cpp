#include "telemetry/metrics.hpp"

#include <gtest/gtest.h>

#include <stdexcept>
#include <thread>

#include "exposition_parser.hpp"
#include "telemetry/exposition.hpp"
#include "telemetry/metric_names.hpp"

namespace gpua::telemetry {
namespace {

using testing::parseExposition;

TEST(Metrics, CounterRendersHelpTypeAndLabelledSeries) {
  Registry r;
  auto& requests = r.counter(kRequestsTotal);
  requests.with({"/mutate", "allowed", "training", "team-a", "classified"}).inc();
  requests.with({"/mutate", "allowed", "training", "team-a", "classified"}).inc(2);
  requests.with({"/validate", "denied", "", "team-b", "unclassified"}).inc();
  const auto e = parseExposition(r.render());
  EXPECT_EQ(e.type.at("gpu_admission_requests_total"), "counter");
  EXPECT_EQ(e.help.at("gpu_admission_requests_total"), kRequestsTotal.help);
  const auto* s = e.find("gpu_admission_requests_total", {{"path", "/mutate"},
                                                          {"decision", "allowed"},
                                                          {"class", "training"},
                                                          {"namespace", "team-a"},
                                                          {"outcome", "classified"}});
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(s->value, "3");
  ASSERT_EQ(e.samples.size(), 2u);
}

// with() finds a series by its values exactly: values that join to the same text are other
// series, a removed series is made anew, and every other series is still the one it was.
TEST(Metrics, WithFindsExactlyItsSeriesAcrossRemovals) {
  CounterFamily family("t_total", "test", {"a", "b"});
  std::vector<std::pair<std::string, std::string>> keys;
  for (const char* a : {"", "a", "ab", "abc", "b", "c", "bc"})
    for (const char* b : {"", "a", "ab", "abc", "b", "c", "bc"}) keys.emplace_back(a, b);
  for (std::size_t i = 0; i < keys.size(); ++i)
    family.with({keys[i].first, keys[i].second}).inc(static_cast<double>(i + 1));
  for (std::size_t i = 0; i < keys.size(); i += 3) family.remove({keys[i].first, keys[i].second});
  for (std::size_t i = 0; i < keys.size(); ++i) {
    const double want = i % 3 == 0 ? 0 : static_cast<double>(i + 1);
    EXPECT_EQ(family.with({keys[i].first, keys[i].second}).value(), want)
        << keys[i].first << "/" << keys[i].second;
  }
}

// 200,000 distinct namespaces from requests made 200,000 series, kept forever.
TEST(Metrics, ACappedLabelSendsValuesPastItsCapToOneOverflowSeries) {
  Registry r;
  auto& requests = r.counter(kRequestsTotal);
  requests.capLabel("namespace", 3);
  for (int i = 0; i < 1000; ++i)
    requests.with({"/validate", "allowed", "", "ns-" + std::to_string(i % 500), "no-gpu"}).inc();
  const auto e = parseExposition(r.render());
  ASSERT_EQ(e.samples.size(), 4u) << r.render();  // ns-0..ns-2 and _other
  const auto value = [&](const std::string& ns) {
    const auto* s = e.find("gpu_admission_requests_total", {{"path", "/validate"},
                                                            {"decision", "allowed"},
                                                            {"class", ""},
                                                            {"namespace", ns},
                                                            {"outcome", "no-gpu"}});
    return s ? s->value : "missing";
  };
  EXPECT_EQ(value("ns-0"), "2");
  EXPECT_EQ(value("ns-2"), "2");
  EXPECT_EQ(value(std::string(kOverflowLabelValue)), "994");
  // An admitted value keeps its own series after the cap is reached; other labels still split.
  requests.with({"/mutate", "allowed", "", "ns-1", "no-gpu"}).inc();
  requests.with({"/mutate", "allowed", "", "ns-9", "no-gpu"}).inc();
  EXPECT_EQ(parseExposition(r.render()).samples.size(), 6u);
  EXPECT_THROW(requests.capLabel("nope", 1), std::invalid_argument);
}

TEST(Metrics, LabelValuesAndHelpAreEscaped) {
  Registry r;
  r.counter("odd_total", "help with \\ and\nnewline", {"v"}).with({"a\"b\\c\nd"}).inc();
  const std::string text = r.render();
  EXPECT_NE(text.find(R"(odd_total{v="a\"b\\c\nd"} 1)"), std::string::npos) << text;
  EXPECT_NE(text.find(R"(# HELP odd_total help with \\ and\nnewline)"), std::string::npos);
  const auto e = parseExposition(text);
  EXPECT_EQ(e.samples.at(0).labels.at("v"), "a\"b\\c\nd");
  EXPECT_EQ(e.help.at("odd_total"), "help with \\ and\nnewline");
}

TEST(Metrics, GaugesSetAddAndCallback) {
  Registry r;
  auto& expiry = r.gauge(kCertificateExpiryTimestampSeconds).get();
  auto& open = r.gauge(kOpenConnections).get();
  open.add(3);
  open.add(-1);
  expiry.set(1.5e9);
  double live = 7;
  auto& ledger = r.gauge(kLedgerPods).get();
  ledger.setCallback([&live] { return live; });
  live = 9;
  const auto e = parseExposition(r.render());
  EXPECT_EQ(e.type.at("gpu_admission_open_connections"), "gauge");
  EXPECT_EQ(e.find("gpu_admission_open_connections", {})->value, "2");
  EXPECT_EQ(e.find("gpu_admission_certificate_expiry_timestamp_seconds", {})->value, "1500000000");
  EXPECT_EQ(e.find("gpu_admission_ledger_pods", {})->value, "9");
}

TEST(Metrics, HistogramBucketsAreCumulativeWithSumAndCount) {
  Registry r;
  auto& h = r.histogram(kRequestDurationSeconds).with({"/mutate"});
  h.observe(0.00004);  // <= 50us
  h.observe(0.00005);  // exactly on a bound: le is inclusive
  h.observe(0.003);
  h.observe(60);  // beyond 10 s: only +Inf
  const auto e = parseExposition(r.render());
  const std::string n = "gpu_admission_request_duration_seconds";
  EXPECT_EQ(e.type.at(n), "histogram");
  auto bucket = [&](const std::string& le) {
    const auto* s = e.find(n + "_bucket", {{"path", "/mutate"}, {"le", le}});
    return s ? s->value : "missing";
  };
  EXPECT_EQ(bucket("5e-05"), "2");
  EXPECT_EQ(bucket("0.0025"), "2");
  EXPECT_EQ(bucket("0.005"), "3");
  EXPECT_EQ(bucket("10"), "3");
  EXPECT_EQ(bucket("+Inf"), "4");
  EXPECT_EQ(e.find(n + "_count", {{"path", "/mutate"}})->value, "4");
  EXPECT_DOUBLE_EQ(std::stod(e.find(n + "_sum", {{"path", "/mutate"}})->value),
                   0.00004 + 0.00005 + 0.003 + 60);
  EXPECT_EQ(latencyBucketsSeconds().front(), 0.00005);
  EXPECT_EQ(latencyBucketsSeconds().back(), 10.0);
  // One line per bucket (17 bounds + Inf) plus sum and count.
  EXPECT_EQ(e.samples.size(), latencyBucketsSeconds().size() + 3);
}

TEST(Metrics, RegistrationIsIdempotentAndChecked) {
  Registry r;
  auto& a = r.counter("x_total", "x", {"a"});
  EXPECT_EQ(&a, &r.counter("x_total", "x", {"a"}));
  EXPECT_THROW(r.counter("x_total", "x", {"b"}), std::logic_error);
  EXPECT_THROW(r.gauge("x_total", "x", {"a"}), std::logic_error);
  EXPECT_THROW(r.counter("bad-name", "x"), std::invalid_argument);
  EXPECT_THROW(r.counter("y_total", "x", {"__reserved"}), std::invalid_argument);
  EXPECT_THROW(r.counter("y_total", "x", {"a", "a"}), std::invalid_argument);
  EXPECT_THROW(r.histogram("h", "x", {}, {1, 0.5}), std::invalid_argument);
  EXPECT_THROW(a.with({"1", "2"}), std::invalid_argument);
}

TEST(Metrics, CountersIgnoreNegativeIncrements) {
  Registry r;
  auto& c = r.counter("c_total", "c").get();
  c.inc(5);
  c.inc(-3);
  EXPECT_EQ(c.value(), 5);
}

TEST(Metrics, EveryDefinedMetricRegistersWithValidNames) {
  Registry r;
  for (const MetricDef* d :
       {&kRequestsTotal, &kBadRequestsTotal, &kPolicyRevisionInfo, &kPolicyReloadTotal,
        &kViolationsTotal, &kWatchRestartsTotal, &kGpuEquivalentSecondsTotal,
        &kQuotaUnavailableTotal, &kLogLinesDroppedTotal, &kQuotaReservationsTotal,
        &kQuotaReservationRoundTripsTotal, &kQuotaReservationConflictsTotal})
    EXPECT_NO_THROW(r.counter(*d)) << d->name;
  for (const MetricDef* d : {&kPolicyLastReloadSuccess, &kCertificateExpiryTimestampSeconds,
                             &kOpenConnections, &kWatchLastEventAgeSeconds, &kLedgerPods})
    EXPECT_NO_THROW(r.gauge(*d)) << d->name;
  EXPECT_NO_THROW(r.histogram(kRequestDurationSeconds));
  EXPECT_NO_THROW(parseExposition(r.render()));
}

TEST(Metrics, NumbersUsePrometheusSpelling) {
  std::string s;
  appendNumber(s, 1.0 / 0.0);
  s += ' ';
  appendNumber(s, -1.0 / 0.0);
  s += ' ';
  appendNumber(s, 0.0 / 0.0);
  s += ' ';
  appendNumber(s, 0.25);
  EXPECT_EQ(s, "+Inf -Inf NaN 0.25");
}

TEST(Metrics, ConcurrentUpdatesAndRendersAreExact) {
  Registry r;
  auto& requests = r.counter(kRequestsTotal);
  auto& latency = r.histogram(kRequestDurationSeconds);
  auto& open = r.gauge(kOpenConnections).get();
  constexpr int kThreads = 4;
  constexpr int kPerThread = 5000;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      const std::string ns = "ns-" + std::to_string(t % 2);
      for (int i = 0; i < kPerThread; ++i) {
        requests.with({"/mutate", "allowed", "", ns, "no-gpu"}).inc();
        // A new label set per thread every 1000 requests exercises the insert path.
        // GCC 12 at -O3 reports a false -Wrestrict inside libstdc++ for "literal" + string&&
        // (GCC bug 105329); the pragma covers this statement only.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wrestrict"
        requests
            .with({"/validate", "allowed", "",
                   "t" + std::to_string(t) + "-" + std::to_string(i / 1000), "no-gpu"})
            .inc();
#pragma GCC diagnostic pop
        latency.with({"/mutate"}).observe(0.0001);
        open.add(1);
        open.add(-1);
        if (i % 1000 == 0) (void)r.render();
      }
    });
  }
  for (auto& th : threads) th.join();
  const auto e = parseExposition(r.render());
  for (const char* ns : {"ns-0", "ns-1"}) {
    const auto* s = e.find("gpu_admission_requests_total", {{"path", "/mutate"},
                                                            {"decision", "allowed"},
                                                            {"class", ""},
                                                            {"namespace", ns},
                                                            {"outcome", "no-gpu"}});
    ASSERT_NE(s, nullptr);
    EXPECT_EQ(s->value, std::to_string(kThreads / 2 * kPerThread));
  }
  EXPECT_EQ(e.find("gpu_admission_request_duration_seconds_count", {{"path", "/mutate"}})->value,
            std::to_string(kThreads * kPerThread));
  EXPECT_EQ(e.find("gpu_admission_open_connections", {})->value, "0");
  std::size_t validateSeries = 0;
  for (const auto& s : e.samples)
    if (s.name == "gpu_admission_requests_total" && s.labels.at("path") == "/validate") {
      ++validateSeries;
      EXPECT_EQ(s.value, "1000");
    }
  EXPECT_EQ(validateSeries, static_cast<std::size_t>(kThreads * kPerThread / 1000));
}

}  // namespace
}  // namespace gpua::telemetry
