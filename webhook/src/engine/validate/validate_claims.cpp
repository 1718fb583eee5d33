// The rules of a pod's DRA claims under spec.dra: claims the webhook cannot resolve, GPU claims
// of device classes the pod's class does not allow, and claims whose size is unknown until the
// scheduler allocates them.
#include <algorithm>

#include "engine/core/text.hpp"
#include "engine/validate/validate.hpp"
#include "policy/rule_ids.hpp"

namespace gpua::engine {

namespace rules = policy::rules;

namespace {

std::string claimLabel(std::string_view claim) {
  return "claim " + text::quoted(text::oneLine(claim, 64));
}

void checkUnresolved(const PodView& pod, const PodGpu& gpu, const policy::PolicySet& policy,
                     Violations& out) {
  const bool deny = policy.dra.unresolvedClaims == policy::UnresolvedClaims::Deny;
  for (const auto& u : gpu.claims.unresolved) {
    std::string message = pod.subject + " " + claimLabel(u.claim);
    if (!u.source.empty()) message += " names " + u.source;
    message += " but it cannot be resolved (" + u.why +
               "), so its GPUs are not counted: create the claim or template before the pod, "
               "or fix the name in spec.resourceClaims";
    out.push_back({rules::kDraClaimUnresolved, std::move(message), !deny});
  }
}

void checkSizeUnknown(const PodView& pod, const PodGpu& gpu, Violations& out) {
  for (const auto& d : gpu.claims.gpus) {
    if (!d.all && !d.countsAs.empty()) continue;
    const std::string what = d.all ? "asks for all devices of " + d.deviceClass
                                   : "asks for " + d.deviceClass + " devices of no known profile";
    out.push_back({rules::kDraClaimSizeUnknown,
                   pod.subject + " " + claimLabel(d.claim) + " (" + d.source + ") request " +
                       text::quoted(text::oneLine(d.request, 64)) + " " + what +
                       ", so quotas count it only once it is allocated: ask for an exact count "
                       "(allocationMode ExactCount) of a pinned profile",
                   true});
  }
}

}  // namespace

void validateClaims(const PodView& pod, const PodGpu& gpu, const policy::PolicySet& policy,
                    Violations& out) {
  if (!gpu.claims.resolved) return;
  checkUnresolved(pod, gpu, policy, out);
  checkSizeUnknown(pod, gpu, out);
}

void checkClassDeviceClasses(const ValidationInput& in, Violations& out) {
  const auto& allowed = in.cls.gpus.deviceClasses;
  if (allowed.empty()) return;
  for (const auto& d : in.gpu.claims.gpus) {
    if (std::find(allowed.begin(), allowed.end(), d.deviceClass) != allowed.end()) continue;
    out.push_back({rules::kDeviceClassNotAllowed,
                   in.pod.subject + " " + claimLabel(d.claim) + " (" + d.source + ") request " +
                       text::quoted(text::oneLine(d.request, 64)) + " asks for device class " +
                       d.deviceClass + " but class " + in.cls.name + " allows only " +
                       text::join(allowed) + ": set deviceClassName to " +
                       (allowed.size() == 1 ? allowed.front() : "one of them") +
                       " in the claim's request"});
  }
}

}  // namespace gpua::engine
