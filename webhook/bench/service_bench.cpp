// What the webhook adds around admission::review() per request, without TLS or sockets: the
// whole /mutate handler (review, request metrics, decision log line), and its bookkeeping parts
// alone. Together with engine_bench's BM_Review it splits the server's CPU per request into the
// review and everything around it. The log is asynchronous, as in `serve` (same queue and
// batch sizes), writing to /dev/null; Google Benchmark's CPU time is the process's, so the
// writer thread's share is counted too.
#include <benchmark/benchmark.h>

#include <cstdio>
#include <memory>
#include <string>

#include "bench_inputs.hpp"
#include "server/snapshot.hpp"
#include "server/webhook_metrics.hpp"
#include "server/webhook_service.hpp"
#include "telemetry/json_logger.hpp"

namespace gpua::bench {
namespace {

struct Fixture {
  telemetry::Registry registry;
  server::WebhookMetrics metrics{registry};
  std::FILE* devNull = std::fopen("/dev/null", "w");
  telemetry::JsonLogger logger{devNull, telemetry::LogLevel::Info,
                               telemetry::LogBuffering{std::size_t{4} << 20, std::size_t{64} << 10,
                                                       std::chrono::milliseconds(100), nullptr}};
  std::shared_ptr<server::Snapshot<policy::PolicySet>> policy;
  std::shared_ptr<server::Readiness> readiness = std::make_shared<server::Readiness>(nullptr);
  std::unique_ptr<server::WebhookService> service;

  Fixture() {
    auto loaded = loadShippedPolicy();
    if (!loaded.ok()) return;  // service stays null: every benchmark reports the error
    policy = std::make_shared<server::Snapshot<policy::PolicySet>>(loaded.policy);
    service = std::make_unique<server::WebhookService>(
        server::WebhookDeps{policy, nullptr, readiness, &metrics, &logger, nullptr});
  }
  ~Fixture() {
    service.reset();
    logger.flush();
    std::fclose(devNull);
  }
};

// Null (with the benchmark marked as failed) when the shipped policy does not load.
Fixture* fixture(benchmark::State& state) {
  static Fixture f;
  if (!f.service) state.SkipWithError("the shipped policy does not load");
  return f.service ? &f : nullptr;
}

server::HttpRequest mutateRequest(PodSize size) {
  server::HttpRequest r;
  r.method = "POST";
  r.target = r.path = "/mutate";
  r.contentType = "application/json";
  r.body = admissionReviewJson(podJson(size), "0f4e6a58-7c2d-4d0b-9a43-3c1f2f7b9d11");
  return r;
}

// The handler the HTTP session calls: review + metrics + log line.
void BM_MutateHandler(benchmark::State& state, PodSize size) {
  auto* f = fixture(state);
  if (f == nullptr) return;
  const auto request = mutateRequest(size);
  for (auto _ : state) {
    auto response = f->service->admit(request, admission::Endpoint::Mutate);
    if (response.status != 200) {
      state.SkipWithError("handler did not answer 200");
      break;
    }
    benchmark::DoNotOptimize(response.body.data());
  }
}

// One decision log line with the fields the handler writes.
void BM_DecisionLogLine(benchmark::State& state) {
  auto* f = fixture(state);
  if (f == nullptr) return;
  const std::vector<std::string> changes{"toleration nvidia.com/gpu", "node affinity",
                                         "priority class gpu-training"};
  const std::string uid = "0f4e6a58-7c2d-4d0b-9a43-3c1f2f7b9d11";
  for (auto _ : state) {
    f->logger.info("admission decision", {{"path", "/mutate"},
                                          {"uid", uid},
                                          {"namespace", "team-vision"},
                                          {"name", "pytorchjob-resnet-worker-3"},
                                          {"kind", "Pod"},
                                          {"operation", "CREATE"},
                                          {"dryRun", false},
                                          {"class", "training"},
                                          {"decision", "allowed"},
                                          {"outcome", "mutated"},
                                          {"reason", ""},
                                          {"mode", "enforce"},
                                          {"message", ""},
                                          {"changes", changes},
                                          {"policyRevision", "3f2a9c1d"},
                                          {"latency_us", 42}});
  }
  // Lines the queue dropped (a full queue is cheaper than a queued line: this should be 0).
  state.counters["dropped"] = static_cast<double>(f->logger.droppedLines());
}

// The two labelled metric updates of a request (counter by 5 labels, histogram by path).
void BM_RequestMetrics(benchmark::State& state) {
  auto* f = fixture(state);
  if (f == nullptr) return;
  for (auto _ : state) {
    f->metrics.duration.with({"/mutate"}).observe(0.000042);
    f->metrics.requests.with({"/mutate", "allowed", "training", "team-vision", "mutated"}).inc();
  }
}

BENCHMARK_CAPTURE(BM_MutateHandler, small, PodSize::Small);
BENCHMARK_CAPTURE(BM_MutateHandler, typical, PodSize::Typical);
BENCHMARK(BM_DecisionLogLine);
BENCHMARK(BM_RequestMetrics);

}  // namespace
}  // namespace gpua::bench

BENCHMARK_MAIN();
