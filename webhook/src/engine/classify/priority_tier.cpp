#include "engine/classify/priority_tier.hpp"

#include <algorithm>

#include "engine/core/json_util.hpp"
#include "engine/core/text.hpp"

namespace gpua::engine {

namespace {

using Preemption = policy::PriorityTier::Preemption;

bool sharesPool(const policy::WorkloadClass& a, const policy::WorkloadClass& b, std::string* pool) {
  for (const auto* list : {&a.pools, &a.cpuPools})
    for (const auto& p : *list)
      for (const auto* other : {&b.pools, &b.cpuPools})
        if (std::find(other->begin(), other->end(), p) != other->end()) {
          *pool = p;
          return true;
        }
  return false;
}

// "class inference-large (gpu-inference) on pool train-h100" for every class whose tier may
// preempt `tier` and whose pods can land on the same nodes (the scheduler preempts only on
// nodes the preemptor fits).
std::vector<std::string> preemptors(const policy::PriorityTier& tier,
                                    const policy::WorkloadClass& cls,
                                    const policy::PolicySet& policy) {
  std::vector<std::string> out;
  for (const auto& other : policy.classes) {
    if (&other == &cls || !other.priorityClassName) continue;
    const policy::PriorityTier* t = policy.findTier(*other.priorityClassName);
    if (t == nullptr || t->value <= tier.value ||
        t->preemptionPolicy != Preemption::PreemptLowerPriority)
      continue;
    std::string pool;
    if (sharesPool(cls, other, &pool))
      out.push_back("class " + other.name + " (" + t->name + ") on pool " + pool);
  }
  return out;
}

}  // namespace

std::string_view effectivePriorityClass(const PodView& pod, const policy::WorkloadClass& cls,
                                        const policy::PolicySet& policy, bool placed) {
  const std::string_view own = pod.specString("priorityClassName");
  if (!placed || !cls.priorityClassName) return own;
  const bool isDefault =
      policy.globalDefaultPriorityClass && *policy.globalDefaultPriorityClass == own;
  if (own.empty() || isDefault || cls.overridePriorityClass) return *cls.priorityClassName;
  return own;
}

std::string describePriority(std::string_view priorityClass, const policy::WorkloadClass& cls,
                             const policy::PolicySet& policy) {
  if (priorityClass.empty()) return {};
  const std::string name = text::oneLine(priorityClass, 80);
  const policy::PriorityTier* tier = policy.findTier(priorityClass);
  if (tier == nullptr) return name + " (no priority tier in the policy)";
  const auto by = preemptors(*tier, cls, policy);
  const char* policyWord =
      tier->preemptionPolicy == Preemption::Never ? "Never" : "PreemptLowerPriority";
  return name + " (value " + std::to_string(tier->value) + ", preemptionPolicy " + policyWord +
         "; " +
         (by.empty() ? std::string("no class of a higher tier shares its pools")
                     : "preemptible by " + text::join(by)) +
         ")";
}

}  // namespace gpua::engine
