// A pod's DRA claims resolved against the cluster's claims, templates and slices under the
// policy's spec.dra: which GPU device classes they ask for and how many units of which extended
// resource that makes (one ledger with device-plugin GPUs). Shared by decide() and, through the
// same call, every path that judges a pod.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "engine/context/dra_objects.hpp"
#include "engine/pod/claim_demand.hpp"
#include "engine/pod/gpu_request.hpp"
#include "engine/pod/pod_view.hpp"
#include "policy/policy_set.hpp"

namespace gpua::engine {

// Empty (resolved = false) when the policy declares no spec.dra. `ns` is the pod's namespace
// (claims and templates are namespaced like the pod).
ClaimDemand resolveClaims(const PodView& pod, std::string_view ns, const DraObjects& dra,
                          const policy::PolicySet& policy);

// What one ResourceClaim itself holds (allocated: its devices; pending: its requests, the
// largest firstAvailable alternative, All unknown): the units the claims ledger counts once in
// the claim's namespace. Empty without spec.dra.
ClaimDemand claimDemandOf(const ResourceClaimInfo& claim, const DraObjects& dra,
                          const policy::PolicySet& policy);

// Hands the claims to the pod's GPU view: with spec.dra a pod whose claims hold no GPU (a NIC,
// say) is no GPU pod, and its GPU claims count in effectiveUnits.
void attachClaims(PodGpu& gpu, ClaimDemand claims);

// `claim "gpu" (ResourceClaimTemplate "single-gpu") asks for 1 gpu.nvidia.com device`, naming
// the first GPU claim; "" when there is none.
std::string describeClaimedGpus(const ClaimDemand& claims);

}  // namespace gpua::engine
