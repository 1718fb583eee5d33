// The usage ledger: ingesting a 100,000-pod list (parse + apply, and apply alone), one watch
// event, and the memory the ledger keeps per pod once the list document is gone.
#include <benchmark/benchmark.h>
#include <malloc.h>
#include <rapidjson/document.h>

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>

#include "bench_inputs.hpp"
#include "inventory/ledger.hpp"

namespace gpua::bench {
namespace {

constexpr std::size_t kPods = 100'000;

std::shared_ptr<const policy::PolicySet> shipped() {
  return shippedPolicy();
}

const std::string& podList() {
  static const std::string list = podListJson(kPods);
  return list;
}

std::size_t heapInUse() {
  return mallinfo2().uordblks;
}

// What a list response costs end to end: parse the bytes, apply the items.
void BM_LedgerIngestParseAndApply(benchmark::State& state) {
  for (auto _ : state) {
    rapidjson::Document doc;
    doc.Parse(podList().data(), podList().size());
    inventory::Ledger ledger(shipped());
    ledger.applyPodList(doc);
    if (ledger.podCount() != kPods) state.SkipWithError("not every pod was counted");
  }
  state.counters["pods"] = kPods;
  state.counters["list_MiB"] = static_cast<double>(podList().size()) / (1 << 20);
}

// The ledger's own share: applying an already parsed list.
void BM_LedgerIngestApplyOnly(benchmark::State& state) {
  rapidjson::Document doc;
  doc.Parse(podList().data(), podList().size());
  for (auto _ : state) {
    inventory::Ledger ledger(shipped());
    ledger.applyPodList(doc);
    benchmark::DoNotOptimize(ledger.podCount());
  }
  state.counters["pods"] = kPods;
}

// Memory the ledger holds per pod after the list document is freed, and the peak while the
// document and the ledger coexist. Measured on the glibc heap (mallinfo2), in one iteration.
void BM_LedgerMemory(benchmark::State& state) {
  for (auto _ : state) {
    const auto before = heapInUse();
    std::size_t peak = 0;
    auto ledger = std::make_unique<inventory::Ledger>(shipped());
    {
      rapidjson::Document doc;
      doc.Parse(podList().data(), podList().size());
      ledger->applyPodList(doc);
      peak = heapInUse() - before;
    }
    const auto kept = heapInUse() - before;
    state.counters["kept_MiB"] = static_cast<double>(kept) / (1 << 20);
    state.counters["peak_MiB"] = static_cast<double>(peak) / (1 << 20);
    state.counters["bytes_per_pod"] = static_cast<double>(kept) / kPods;
    benchmark::DoNotOptimize(ledger->podCount());
  }
}

// One watch event (MODIFIED) against a ledger that already holds 100,000 pods.
void BM_LedgerWatchEvent(benchmark::State& state) {
  rapidjson::Document list;
  list.Parse(podList().data(), podList().size());
  inventory::Ledger ledger(shipped());
  ledger.applyPodList(list);
  const auto eventText = listPodJson(4242);
  for (auto _ : state) {
    rapidjson::Document pod;
    pod.Parse(eventText.data(), eventText.size());
    ledger.applyPodEvent(inventory::EventType::Modified, pod);
  }
  if (ledger.podCount() != kPods) state.SkipWithError("the event changed the pod count");
}

// The snapshot the engine reads, rebuilt after an event.
void BM_LedgerSnapshot(benchmark::State& state) {
  rapidjson::Document list;
  list.Parse(podList().data(), podList().size());
  inventory::Ledger ledger(shipped());
  ledger.applyPodList(list);
  for (auto _ : state) benchmark::DoNotOptimize(ledger.snapshot(true, "").get());
}

BENCHMARK(BM_LedgerIngestParseAndApply)->Unit(benchmark::kMillisecond)->Iterations(3);
BENCHMARK(BM_LedgerIngestApplyOnly)->Unit(benchmark::kMillisecond)->Iterations(3);
BENCHMARK(BM_LedgerMemory)->Unit(benchmark::kMillisecond)->Iterations(1);
BENCHMARK(BM_LedgerWatchEvent)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_LedgerSnapshot)->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace gpua::bench

BENCHMARK_MAIN();
