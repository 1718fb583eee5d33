#include "engine/pod/pod_demand.hpp"

#include <string>

#include "engine/core/json_util.hpp"
#include "engine/pod/pod_request_fold.hpp"
#include "engine/pod/resource_quantity.hpp"

namespace gpua::engine {

ContainerRole roleOf(const ContainerGpu& c) {
  if (!c.init) return ContainerRole::App;
  return json::stringMember(c.container, "restartPolicy") == "Always" ? ContainerRole::Sidecar
                                                                      : ContainerRole::Init;
}

namespace {

// PodGpu lists app containers first, then init containers in order, which is all the fold
// needs.
int64_t milliOf(const ContainerGpu& c, std::string_view name) {
  const rapidjson::Value* q = json::member(c.requests, name);
  if (q == nullptr) q = json::member(c.limits, name);
  if (q == nullptr) return 0;
  return quantityMilli(*q).value_or(0);
}

}  // namespace

void GpuDemand::add(ResourceDemand d) {
  if (count_ < fixed_.size()) {
    fixed_[count_] = d;
  } else {
    spill_.push_back(d);
  }
  ++count_;
}

int64_t GpuDemand::of(std::string_view resource) const {
  for (std::size_t i = 0; i < count_; ++i)
    if ((*this)[i].resource == resource) return (*this)[i].units;
  return 0;
}

GpuDemand perNodeGpuDemand(const PodGpu& gpu, std::string_view rewriteTo) {
  auto nameOf = [&](const GpuEntry& e) {
    return !rewriteTo.empty() && e.resource == kWholeGpu ? rewriteTo : e.resource;
  };
  GpuDemand out;
  // One fold per distinct resource, over every container in order: pods name one or two.
  for (std::size_t ci = 0; ci < gpu.containers.size(); ++ci)
    for (const auto& first : gpu.containers[ci].gpus) {
      const std::string_view name = nameOf(first);
      bool seen = false;
      for (std::size_t i = 0; i < out.size() && !seen; ++i) seen = out[i].resource == name;
      if (seen) continue;
      PodRequestFold fold;
      for (const auto& c : gpu.containers) {
        int64_t mine = 0;
        for (const auto& e : c.gpus)
          if (nameOf(e) == name) mine = addUnits(mine, e.units());
        fold.add(roleOf(c), mine);
      }
      if (fold.total() > 0) out.add({name, fold.total()});
    }
  return out;
}

CpuMemoryDemand perNodeCpuMemory(const PodView& pod, const PodGpu& gpu) {
  PodRequestFold cpu, memory;
  for (const auto& c : gpu.containers) {
    cpu.add(roleOf(c), milliOf(c, "cpu"));
    memory.add(roleOf(c), milliOf(c, "memory"));
  }
  const rapidjson::Value* overhead = json::objectMember(pod.spec, "overhead");
  auto extra = [&](std::string_view name) {
    const rapidjson::Value* q = json::member(overhead, name);
    return q == nullptr ? 0 : quantityMilli(*q).value_or(0);
  };
  return {addUnits(cpu.total(), extra("cpu")), addUnits(memory.total(), extra("memory")) / 1000};
}

}  // namespace gpua::engine
