// The stable ids of the rules the engine reports (Violation::rule), declared once: the engine's
// emitters use these constants, and knownRuleIds() lists them, so that a policy can name one
// (spec.ruleExemptions) and the loader can refuse a misspelt id with a "did you mean" hint.
// A rule added to the engine is added here, or it cannot be exempted.
#pragma once

#include <string>
#include <vector>

namespace gpua::policy {

namespace rules {

// pod shape and GPU requests
inline constexpr const char* kInvalidPod = "invalid-pod";
inline constexpr const char* kInvalidGpuQuantity = "invalid-gpu-quantity";
inline constexpr const char* kRequestsLimitsMismatch = "requests-limits-mismatch";

// classes
inline constexpr const char* kUnclassifiedGpuPod = "unclassified-gpu-pod";
inline constexpr const char* kClassNotAllowed = "class-not-allowed";
inline constexpr const char* kMissingGpuRequest = "missing-gpu-request";
inline constexpr const char* kGpuForbidden = "gpu-forbidden";
inline constexpr const char* kMaxPerContainer = "max-per-container";
inline constexpr const char* kMaxPerPod = "max-per-pod";
inline constexpr const char* kSharedGpuOverOne = "shared-gpu-over-one";
inline constexpr const char* kMigProfileUnavailable = "mig-profile-unavailable";
inline constexpr const char* kPriorityClassNotAllowed = "priority-class-not-allowed";
inline constexpr const char* kPriorityClassMissing = "priority-class-missing";
inline constexpr const char* kRuntimeClassNotAllowed = "runtime-class-not-allowed";
inline constexpr const char* kRequiredLabelMissing = "required-label-missing";
inline constexpr const char* kGpuPoolWithoutRequest = "gpu-pool-without-request";

// field guards, nodeSelector placement, checkpoints
inline constexpr const char* kVisibleDevicesWithoutGpu = "visible-devices-without-gpu";
inline constexpr const char* kNodeAffinityForbidden = "node-affinity-forbidden";
inline constexpr const char* kNodeSelectorForbidden = "node-selector-forbidden";
inline constexpr const char* kNodeNameForbidden = "node-name-forbidden";
inline constexpr const char* kTolerationForbidden = "toleration-forbidden";
inline constexpr const char* kNodeSelectorConflict = "node-selector-conflict";
inline constexpr const char* kCheckpointMissing = "checkpoint-missing";
inline constexpr const char* kCheckpointDangling = "checkpoint-dangling";
inline constexpr const char* kCheckpointInvalid = "checkpoint-invalid";

// effects in require mode
inline constexpr const char* kTolerationRequired = "toleration-required";
inline constexpr const char* kNodePlacementRequired = "node-placement-required";
inline constexpr const char* kPriorityClassRequired = "priority-class-required";
inline constexpr const char* kRuntimeClassRequired = "runtime-class-required";
inline constexpr const char* kResourceNameRequired = "resource-name-required";
inline constexpr const char* kResourceRequestsRequired = "resource-requests-required";

// container resources per class
inline constexpr const char* kContainerResourcesMissing = "container-resources-missing";
inline constexpr const char* kQosNotGuaranteed = "qos-not-guaranteed";
inline constexpr const char* kQosBestEffort = "qos-best-effort";
inline constexpr const char* kResourcesPerGpuExceeded = "resources-per-gpu-exceeded";
inline constexpr const char* kLimitRequestRatioExceeded = "limit-request-ratio-exceeded";
inline constexpr const char* kRequiredEnvMissing = "required-env-missing";
inline constexpr const char* kContainerResourcesExceeded = "container-resources-exceeded";

// quotas
inline constexpr const char* kQuota = "quota";
inline constexpr const char* kQuotaUnavailable = "quota-unavailable";

// placement and capacity (node data)
inline constexpr const char* kPlacementConflict = "placement-conflict";
inline constexpr const char* kNoCapacity = "no-capacity";
inline constexpr const char* kGpuStranding = "gpu-stranding";
// DRA claims (spec.dra)
inline constexpr const char* kDraClaimUnresolved = "dra-claim-unresolved";
inline constexpr const char* kDeviceClassNotAllowed = "device-class-not-allowed";
inline constexpr const char* kDraClaimSizeUnknown = "dra-claim-size-unknown";
}  // namespace rules

const std::vector<std::string>& knownRuleIds();

}  // namespace gpua::policy
