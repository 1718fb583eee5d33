// The request path without the network: AdmissionReview bytes -> parse -> decide -> patch ->
// response JSON, for three pod sizes and two policy sets, next to RapidJSON parsing the same
// bytes alone (the floor). The ratio review_parse is the figure to watch: everything above
// the floor is ours.
#include <benchmark/benchmark.h>
#include <rapidjson/document.h>

#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <new>
#include <string>

#include "admission/review.hpp"
#include "bench_inputs.hpp"
#include "engine/context/supply.hpp"

// GCC pairs the replacement operator new's malloc with the free below at inlined call sites and
// reports a false mismatch; the pair is correct (both sides are replaced together).
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"

// Heap allocations made by this thread, counted by the replacement operator new below, so the
// review benchmarks can report allocations per review (the leading cost the profile shows).
namespace {
thread_local std::size_t tAllocations = 0;
}  // namespace

void* operator new(std::size_t n) {
  ++tAllocations;
  if (void* p = std::malloc(n ? n : 1)) return p;
  throw std::bad_alloc();
}
void operator delete(void* p) noexcept {
  std::free(p);
}
void operator delete(void* p, std::size_t) noexcept {
  std::free(p);
}

namespace gpua::bench {
namespace {

const std::string& reviewBody(PodSize size) {
  static const std::map<PodSize, std::string> bodies = [] {
    std::map<PodSize, std::string> m;
    for (auto s : {PodSize::Small, PodSize::Typical, PodSize::Large})
      m[s] = admissionReviewJson(podJson(s), "705ab4f5-6393-11e8-b7cc-42010a800002");
    return m;
  }();
  return bodies.at(size);
}

const policy::PolicySet& shipped() {
  return *shippedPolicy();
}

const policy::PolicySet& manyClasses() {
  static const auto p =
      mustLoad(policy::loadPolicySources({{"bench-1000.yaml", manyClassesPolicyYaml(1000)}}),
               "1000 classes");
  return *p;
}

void setBytes(benchmark::State& state, const std::string& body) {
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * body.size()));
  state.counters["bytes"] = static_cast<double>(body.size());
}

// The floor: what any JSON webhook pays to read the body (a fresh Document, RapidJSON's
// default allocator, as most code would write it).
void BM_Parse(benchmark::State& state, PodSize size) {
  const auto& body = reviewBody(size);
  for (auto _ : state) {
    rapidjson::Document doc;
    doc.Parse(body.data(), body.size());
    benchmark::DoNotOptimize(doc.HasParseError());
  }
  setBytes(state, body);
}

// The stricter floor: a copy into a padded buffer and an in-situ parse into a reused arena,
// which is how admission::review() parses.
void BM_ParseInsitu(benchmark::State& state, PodSize size) {
  const auto& body = reviewBody(size);
  static char arena[64 * 1024];
  std::string buffer;
  for (auto _ : state) {
    buffer.reserve(body.size() + 32);
    buffer.assign(body);
    rapidjson::MemoryPoolAllocator<> alloc(arena, sizeof arena);
    rapidjson::Document doc(&alloc);
    doc.ParseInsitu(buffer.data());
    benchmark::DoNotOptimize(doc.HasParseError());
  }
  setBytes(state, body);
}

// The whole review: what the server's handler runs per request.
void BM_Review(benchmark::State& state, PodSize size, bool many) {
  const auto& body = reviewBody(size);
  const auto& policy = many ? manyClasses() : shipped();
  const engine::UsageSnapshot usage;
  std::size_t patchBytes = 0, patchOps = 0;
  const std::size_t allocationsBefore = tAllocations;
  for (auto _ : state) {
    auto r = admission::review(body, admission::Endpoint::Mutate, policy, usage);
    if (r.httpStatus != 200 || !r.decision) {
      static std::string why;
      why = "review failed: " + r.body.substr(0, 300);
      state.SkipWithError(why.c_str());
      break;
    }
    patchBytes = r.body.size();
    patchOps = r.decision->patch.size();
    benchmark::DoNotOptimize(r.body.data());
  }
  setBytes(state, body);
  state.counters["response_bytes"] = static_cast<double>(patchBytes);
  state.counters["patch_ops"] = static_cast<double>(patchOps);
  if (state.iterations() > 0)
    state.counters["allocs"] = static_cast<double>(tAllocations - allocationsBefore) /
                               static_cast<double>(state.iterations());
}

// The typical pod as /validate denies it: the Kubeflow job label removed, so it is a GPU pod no
// class claims (unclassifiedGpuPods: deny), in a namespace the rollout enforces (env=dev).
const std::string& unclassifiedTypicalBody() {
  static const std::string body = [] {
    std::string pod = podJson(PodSize::Typical);
    const std::string label = R"("training.kubeflow.org/job-name":"resnet-imagenet",)";
    pod.erase(pod.find(label), label.size());
    return admissionReviewJson(pod, "705ab4f5-6393-11e8-b7cc-42010a800002");
  }();
  return body;
}

enum class Verdict { Mutate, Deny };

// Heap allocations per review once the request path is warm (1,000 reviews first, into one
// result as the server's), as the issue's target counts them: the typical pod mutated at /mutate,
// the unclassified one denied at /validate, in a namespace the rollout enforces. Time is measured
// too but is not the figure here.
void BM_SteadyStateAllocations(benchmark::State& state, Verdict verdict) {
  const bool deny = verdict == Verdict::Deny;
  const auto& body = deny ? unclassifiedTypicalBody() : reviewBody(PodSize::Typical);
  const auto endpoint = deny ? admission::Endpoint::Validate : admission::Endpoint::Mutate;
  // The mutate case is BM_Review's (and the callgrind figure's): no usage, the rollout's warn.
  engine::UsageSnapshot usage;
  if (deny) {
    usage.available = true;
    usage.namespaceLabels["team-a"] = {{"env", "dev"}};
  }
  // The result is kept from review to review, as the server keeps one per thread.
  admission::ReviewResult r;
  const auto once = [&] {
    admission::review(body, endpoint, shipped(), usage, engine::noSupply(), r);
  };
  for (int i = 0; i < 1000; ++i) once();
  if (!r.decision || r.decision->allowed() == deny || r.decision->patch.empty() == !deny) {
    state.SkipWithError("the pod is not decided as this benchmark expects");
    return;
  }
  const std::size_t allocationsBefore = tAllocations;
  for (auto _ : state) {
    once();
    benchmark::DoNotOptimize(r.body.data());
  }
  if (state.iterations() > 0)
    state.counters["allocs"] = static_cast<double>(tAllocations - allocationsBefore) /
                               static_cast<double>(state.iterations());
}

// A cluster of `count` nodes spread over the policy's pools: each node carries its pool's labels
// and taints and 8 units of each of its resources, of which every odd node has `taken` in use.
engine::SupplySnapshot clusterSupply(const policy::PolicySet& policy, int count, int taken) {
  std::vector<engine::NodeSupply> nodes;
  nodes.reserve(static_cast<std::size_t>(count));
  for (int i = 0; i < count; ++i) {
    const auto& pool = policy.pools[static_cast<std::size_t>(i) % policy.pools.size()];
    engine::NodeSupply n;
    n.name = "node-" + std::to_string(i);
    for (const auto& [k, v] : pool.nodeSelector) n.labels[k] = v;
    n.taints = pool.taints;
    n.ready = true;
    std::vector<std::string> resources{pool.resource};
    if (pool.sharing == policy::Sharing::Mig) {
      resources.clear();
      for (const auto& p : pool.migProfiles) resources.push_back("nvidia.com/mig-" + p);
    }
    for (const auto& r : resources) {
      n.allocatable[r] = 8;
      n.allocated[r] = i % 2 == 1 ? taken : 0;
    }
    n.cpuMillis = 96000;
    n.memoryBytes = int64_t{1} << 40;
    nodes.push_back(std::move(n));
  }
  return engine::summarizeSupply({std::move(nodes), {{"training", "train-h100", 12, 600}}}, policy);
}

// BM_Review with node data: the difference to BM_Review/<size>_shipped is what the capacity
// checks (no-capacity, gpu-stranding, waiting hint) add to a review. `full`: every node of the
// pool is busy, so the review also builds the waiting hint.
void BM_ReviewWithSupply(benchmark::State& state, PodSize size, bool full) {
  const auto& body = reviewBody(size);
  const auto& policy = shipped();
  static const engine::SupplySnapshot room = clusterSupply(policy, 5000, 2);
  static const engine::SupplySnapshot busy = [&] {
    auto s = clusterSupply(policy, 5000, 8);
    for (auto& [name, pool] : s.pools)  // the even nodes too: no node has room
      for (auto& [r, supply] : pool.resources) supply.maxFreePerNode = 0;
    return s;
  }();
  const engine::SupplySnapshot& supply = full ? busy : room;
  const engine::UsageSnapshot usage;
  const std::size_t allocationsBefore = tAllocations;
  for (auto _ : state) {
    auto r = admission::review(body, admission::Endpoint::Mutate, policy, usage, supply);
    if (r.httpStatus != 200 || !r.decision) {
      state.SkipWithError("review failed");
      break;
    }
    benchmark::DoNotOptimize(r.body.data());
  }
  setBytes(state, body);
  if (state.iterations() > 0)
    state.counters["allocs"] = static_cast<double>(tAllocations - allocationsBefore) /
                               static_cast<double>(state.iterations());
}

// The fold itself, once per node change or policy reload (never per request).
void BM_SummarizeSupply(benchmark::State& state) {
  const auto& policy = shipped();
  const auto base = clusterSupply(policy, static_cast<int>(state.range(0)), 2);
  for (auto _ : state) {
    auto s = engine::summarizeSupply(static_cast<const engine::NodeInventory&>(base), policy);
    benchmark::DoNotOptimize(s.pools.size());
  }
}

BENCHMARK_CAPTURE(BM_Parse, small, PodSize::Small);
BENCHMARK_CAPTURE(BM_Parse, typical, PodSize::Typical);
BENCHMARK_CAPTURE(BM_Parse, large, PodSize::Large);
BENCHMARK_CAPTURE(BM_ParseInsitu, small, PodSize::Small);
BENCHMARK_CAPTURE(BM_ParseInsitu, typical, PodSize::Typical);
BENCHMARK_CAPTURE(BM_ParseInsitu, large, PodSize::Large);
BENCHMARK_CAPTURE(BM_Review, small_shipped, PodSize::Small, false);
BENCHMARK_CAPTURE(BM_Review, typical_shipped, PodSize::Typical, false);
BENCHMARK_CAPTURE(BM_Review, large_shipped, PodSize::Large, false);
BENCHMARK_CAPTURE(BM_Review, small_classes1000, PodSize::Small, true);
BENCHMARK_CAPTURE(BM_Review, typical_classes1000, PodSize::Typical, true);
BENCHMARK_CAPTURE(BM_Review, large_classes1000, PodSize::Large, true);
BENCHMARK_CAPTURE(BM_SteadyStateAllocations, typical_mutate, Verdict::Mutate);
BENCHMARK_CAPTURE(BM_SteadyStateAllocations, typical_deny, Verdict::Deny);
BENCHMARK_CAPTURE(BM_ReviewWithSupply, small_shipped_5000nodes, PodSize::Small, false);
BENCHMARK_CAPTURE(BM_ReviewWithSupply, typical_shipped_5000nodes, PodSize::Typical, false);
BENCHMARK_CAPTURE(BM_ReviewWithSupply, typical_shipped_5000nodes_full, PodSize::Typical, true);
BENCHMARK(BM_SummarizeSupply)->Arg(5000)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace gpua::bench

BENCHMARK_MAIN();
