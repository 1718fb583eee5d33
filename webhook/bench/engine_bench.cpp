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

std::shared_ptr<const policy::PolicySet> mustLoad(policy::LoadResult r, const char* what) {
  if (!r.ok()) {
    std::fprintf(stderr, "bench: %s does not load: %s\n", what,
                 r.errors.empty() ? "?" : r.errors.front().format().c_str());
    std::exit(1);
  }
  return r.policy;
}

const policy::PolicySet& shipped() {
  static const auto p = mustLoad(loadShippedPolicy(), "the shipped policy");
  return *p;
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

}  // namespace
}  // namespace gpua::bench

BENCHMARK_MAIN();
