// What a pod's DRA claims (spec.resourceClaims) ask for once resolved against the claims,
// templates and slices the cluster holds (engine/context/claim_resolution.hpp): per claim, the
// GPU device classes, units per extended resource they count as (spec.dra.deviceClasses), and
// what could not be known. Pod-level: a claim shared by containers is counted once.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace gpua::engine {

// One GPU request of a claim, for messages and the class's allowed device classes.
struct ClaimedDevices {
  std::string claim;        // the pod's spec.resourceClaims[].name
  std::string source;       // `ResourceClaim "x"` or `ResourceClaimTemplate "y"`
  std::string request;      // the request's (or subrequest's) name
  std::string deviceClass;  // a class of spec.dra.deviceClasses
  int64_t count = 0;        // devices; 0 with `all` (unknown until allocated)
  bool all = false;
  std::string countsAs;  // the resolved extended resource; "" when the profile is unknown
};

struct UnresolvedClaim {
  std::string claim;
  std::string source;  // what the pod names: `ResourceClaimTemplate "y"`, or "" when nothing
  std::string why;
};

struct ClaimDemand {
  bool resolved = false;  // spec.dra is declared and the claims were looked up
  std::vector<ClaimedDevices> gpus;
  std::vector<UnresolvedClaim> unresolved;
  // Every device class the claims name (GPU or not), for match.deviceClasses.
  std::vector<std::string> deviceClasses;
  // Units per extended resource the GPU devices count as, the largest firstAvailable
  // alternative for a pending claim. For a pod, only the claims its templates will make: a
  // ResourceClaim that exists is counted once where it is (the claims ledger), not per pod.
  std::map<std::string, int64_t, std::less<>> units;
  // Some GPU request's size is unknown: allocationMode All before allocation, or a MIG device
  // whose profile neither the slice nor the selectors give.
  bool unknownSize = false;

  bool asksForGpus() const { return !gpus.empty() || !unresolved.empty(); }
};

}  // namespace gpua::engine
