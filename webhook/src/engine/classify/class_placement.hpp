// Which pods of a class get its placement, tolerations and priority class, and on which pools:
// GPU pods on the class's pools; pods without GPUs on its cpuPools when the class places them
// (gpus.request: forbidden, or cpuPools set). A CPU pod of an optional-GPU class without
// cpuPools (a CPU notebook) gets only the class annotations.
#pragma once

#include <boost/container/small_vector.hpp>

#include <span>
#include <vector>

#include "engine/pod/gpu_request.hpp"
#include "policy/policy_set.hpp"

namespace gpua::engine {

inline bool placesCpuPods(const policy::WorkloadClass& cls) {
  return cls.gpus.request == policy::GpuRequest::Forbidden || !cls.cpuPools.empty();
}

// Whether this pod gets the class's placement, tolerations and priority class.
inline bool getsClassPlacement(const policy::WorkloadClass& cls, const PodGpu& gpu) {
  return gpu.hasGpu || placesCpuPods(cls);
}

// The allPods pseudo-class (PolicySet::allPodsRules) judging a pod no class takes.
inline bool isAllPodsRules(const policy::WorkloadClass& cls) {
  return cls.name.empty();
}

// Whether a rule scoped by `appliesTo` judges this pod of the class. For a pod no class takes
// (judged with the allPods pseudo-class) only rules of scope allPods do.
inline bool inRuleScope(policy::RuleScope scope, const policy::WorkloadClass& cls,
                        const PodGpu& gpu) {
  if (isAllPodsRules(cls)) return scope == policy::RuleScope::AllPods;
  switch (scope) {
    case policy::RuleScope::GpuPods:
      return gpu.hasGpu;
    case policy::RuleScope::PlacedPods:
      return getsClassPlacement(cls, gpu);
    case policy::RuleScope::ClassPods:
    case policy::RuleScope::AllPods:
      return true;
  }
  return false;
}

// Who a rule belongs to, in messages: "class training", or the cluster default for allPods.
inline std::string ruleOwner(const policy::WorkloadClass& cls) {
  return isAllPodsRules(cls) ? std::string("the cluster default (spec.containers)")
                             : "class " + cls.name;
}

// A class's pools, resolved for one pod: a class names a few, so they are kept in place (a
// request resolves them without allocating; a class of more pools spills to the heap).
using PoolList = boost::container::small_vector<const policy::Pool*, 4>;

// The list as a span (Boost's iterators are not std::contiguous_iterator, so no conversion).
inline std::span<const policy::Pool* const> poolSpan(const PoolList& pools) {
  return {pools.data(), pools.size()};
}

// The pools `names` names, in that order, found by `find` (names without a pool are skipped).
template <typename Find>
PoolList poolsNamed(const std::vector<std::string>& names, Find find) {
  PoolList out;
  out.reserve(names.size());
  for (const auto& name : names)
    if (const auto* pool = find(name)) out.push_back(pool);
  return out;
}

// The class's GPU pools, in its order: where its GPU pods go.
inline PoolList gpuPoolsOf(const policy::WorkloadClass& cls, const policy::PolicySet& policy) {
  return poolsNamed(cls.pools, [&](const std::string& n) { return policy.findPool(n); });
}

inline PoolList cpuPoolsOf(const policy::WorkloadClass& cls, const policy::PolicySet& policy) {
  return poolsNamed(cls.cpuPools, [&](const std::string& n) { return policy.findCpuPool(n); });
}

}  // namespace gpua::engine
