// Policy loading: the shipped set and a generated set of 1,000 classes and 1,000 pools. A
// reload runs this on the reloader thread while requests are served, so its cost bounds how
// long the old and the new policy coexist in memory.
#include <benchmark/benchmark.h>

#include <string>

#include "bench_inputs.hpp"

namespace gpua::bench {
namespace {

void BM_LoadShipped(benchmark::State& state) {
  for (auto _ : state) {
    auto r = loadShippedPolicy();
    if (!r.ok()) state.SkipWithError("the shipped policy does not load");
    benchmark::DoNotOptimize(r.policy.get());
  }
}

void BM_LoadManyClasses(benchmark::State& state) {
  const auto n = static_cast<std::size_t>(state.range(0));
  const std::vector<policy::PolicySource> sources{{"bench-many.yaml", manyClassesPolicyYaml(n)}};
  for (auto _ : state) {
    auto r = policy::loadPolicySources(sources);
    if (!r.ok() || r.policy->classes.size() != n) state.SkipWithError("the policy does not load");
    benchmark::DoNotOptimize(r.policy.get());
  }
  state.counters["classes_and_pools"] = static_cast<double>(n);
  state.counters["yaml_KiB"] = static_cast<double>(sources.front().text.size()) / 1024;
}

BENCHMARK(BM_LoadShipped)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_LoadManyClasses)->Arg(100)->Arg(1000)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace gpua::bench

BENCHMARK_MAIN();
