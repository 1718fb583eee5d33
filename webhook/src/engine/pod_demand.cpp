#include "engine/pod_demand.hpp"

#include <algorithm>

#include "engine/json_util.hpp"
#include "engine/resource_quantity.hpp"

namespace gpua::engine {

namespace {

bool isSidecar(const ContainerGpu& c) {
  return c.init && json::stringMember(c.container, "restartPolicy") == "Always";
}

// Folds one amount per container the way the kubelet sizes a pod: `sum` of app containers and
// sidecars, `initPeak` the most any init container needs beside the sidecars started before it.
struct Fold {
  int64_t sum = 0;
  int64_t sidecars = 0;
  int64_t initPeak = 0;

  void add(const ContainerGpu& c, int64_t amount) {
    if (!c.init) {
      sum = addUnits(sum, amount);
    } else if (isSidecar(c)) {
      sum = addUnits(sum, amount);
      sidecars = addUnits(sidecars, amount);
      initPeak = std::max(initPeak, sidecars);
    } else {
      initPeak = std::max(initPeak, addUnits(amount, sidecars));
    }
  }
  int64_t total() const { return std::max(sum, initPeak); }
};

// Init containers run in order; PodGpu lists app containers first, then init containers in
// order, which is all the fold needs.
int64_t milliOf(const ContainerGpu& c, std::string_view name) {
  const rapidjson::Value* q = json::member(c.requests, name);
  if (q == nullptr) q = json::member(c.limits, name);
  if (q == nullptr) return 0;
  return quantityMilli(*q).value_or(0);
}

}  // namespace

ResourceUnits perNodeGpuDemand(const PodGpu& gpu, std::string_view rewriteTo) {
  std::map<std::string_view, Fold> folds;
  for (const auto& c : gpu.containers) {
    std::map<std::string_view, int64_t> mine;  // one container may list a resource once
    for (const auto& e : c.gpus) {
      const std::string_view name =
          !rewriteTo.empty() && e.resource == kWholeGpu ? rewriteTo : e.resource;
      mine[name] = addUnits(mine[name], e.units());
    }
    for (auto& [name, fold] : folds)
      if (!mine.contains(name)) fold.add(c, 0);  // keeps sidecars and order right for others
    for (const auto& [name, n] : mine) {
      auto [it, fresh] = folds.try_emplace(name);
      (void)fresh;
      it->second.add(c, n);
    }
  }
  ResourceUnits out;
  for (const auto& [name, fold] : folds)
    if (fold.total() > 0) out.emplace(std::string(name), fold.total());
  return out;
}

CpuMemoryDemand perNodeCpuMemory(const PodView& pod, const PodGpu& gpu) {
  Fold cpu, memory;
  for (const auto& c : gpu.containers) {
    cpu.add(c, milliOf(c, "cpu"));
    memory.add(c, milliOf(c, "memory"));
  }
  const rapidjson::Value* overhead = json::objectMember(pod.spec, "overhead");
  auto extra = [&](std::string_view name) {
    const rapidjson::Value* q = json::member(overhead, name);
    return q == nullptr ? 0 : quantityMilli(*q).value_or(0);
  };
  return {addUnits(cpu.total(), extra("cpu")), addUnits(memory.total(), extra("memory")) / 1000};
}

}  // namespace gpua::engine
