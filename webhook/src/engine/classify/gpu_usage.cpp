#include "engine/classify/gpu_usage.hpp"

#include "engine/classify/classify.hpp"
#include "engine/core/json_util.hpp"
#include "engine/pod/gpu_request.hpp"
#include "engine/pod/pod_view.hpp"
#include "policy/gpu_models.hpp"

namespace gpua::engine {

namespace {

constexpr int kDefaultSlices = 7;  // A100/H100/H200: the common case when no pool says more

// Compute slices of the GPU model whose MIG pools offer `profile`.
int slicesForProfile(std::string_view profile, const policy::PolicySet& policy) {
  for (const auto& pool : policy.pools) {
    if (pool.sharing != policy::Sharing::Mig) continue;
    for (const auto& p : pool.migProfiles) {
      if (p != profile) continue;
      const policy::GpuModel* model = policy::findGpuModel(pool.gpu);
      if (model != nullptr && model->computeSlices > 0) return model->computeSlices;
    }
  }
  return kDefaultSlices;
}

}  // namespace

double gpuEquivalentsOf(std::string_view resource, int64_t units, const policy::PolicySet& policy) {
  if (units <= 0) return 0;
  const auto n = static_cast<double>(units);
  if (resource == kWholeGpu) return n;
  if (resource.starts_with(kMigPrefix)) {
    const std::string_view profile = resource.substr(kMigPrefix.size());
    const int slices = policy::migProfileSlices(profile).value_or(1);
    return n * slices / slicesForProfile(profile, policy);
  }
  for (const auto& pool : policy.pools) {
    if (pool.resource != resource) continue;
    const bool shared =
        pool.sharing == policy::Sharing::TimeSlicing || pool.sharing == policy::Sharing::Mps;
    return shared ? n / (pool.replicas > 0 ? pool.replicas : 1) : n;
  }
  return 0;
}

PodGpuUsage podGpuUsage(const rapidjson::Value& pod, const policy::PolicySet& policy) {
  PodGpuUsage out;
  const PodView view = podViewOf(pod);
  const PodGpu gpu = analyzeGpu(view, policy, nullptr);
  for (const auto& [resource, units] : effectiveUnits(gpu, {})) {
    out.gpuEquivalents += gpuEquivalentsOf(resource, units, policy);
    out.units.emplace(resource, units);
  }
  out.hasResourceClaims = gpu.hasResourceClaims;
  bool annotated = false;
  const std::string_view recorded = view.annotation(kClassAnnotation, &annotated);
  if (annotated && !recorded.empty()) {
    out.className = std::string(recorded);
    return out;
  }
  const kube::Labels noLabels;
  const MatchInput in{view, gpu, json::stringMember(view.metadata, "namespace"), noLabels};
  const Classification c = classify(in, policy);
  if (c.cls != nullptr) out.className = c.cls->name;
  return out;
}

}  // namespace gpua::engine
