#include "engine/classify/claim_usage.hpp"

#include "engine/classify/claim_resolution.hpp"
#include "engine/classify/gpu_usage.hpp"

namespace gpua::engine {

namespace {

// The class of the first pod the claim is reserved for that the webhook knows, else "".
std::string_view classOf(const ResourceClaimInfo& claim, const DraObjects& dra) {
  for (const auto& uid : claim.reservedFor)
    if (auto it = dra.podClasses.find(uid); it != dra.podClasses.end()) return it->second;
  return {};
}

}  // namespace

void addClaimUsage(UsageSnapshot& usage, const policy::PolicySet& policy) {
  if (!usage.dra || !policy.dra.declared) return;
  const DraObjects& dra = *usage.dra;
  for (const auto& [key, claim] : dra.claims) {
    if (dra.extendedResourceClaims.contains(key)) continue;
    const ClaimDemand demand = claimDemandOf(claim, dra, policy);
    if (demand.units.empty()) continue;
    NamespaceUsage& ns = usage.namespaces[claim.namespaceName];
    double ge = 0;
    for (const auto& [resource, units] : demand.units) {
      ge += gpuEquivalentsOf(resource, units, policy);
      ns.byResource[resource] += units;
    }
    ns.gpuEquivalents += ge;
    if (const std::string_view cls = classOf(claim, dra); !cls.empty())
      ns.byClass[std::string(cls)] += ge;
  }
}

}  // namespace gpua::engine
