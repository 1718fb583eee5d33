#include "policy/rule_ids.hpp"

namespace gpua::policy {

const std::vector<std::string>& knownRuleIds() {
  using namespace rules;
  static const std::vector<std::string> ids = {
      // pod shape and GPU requests
      kInvalidPod,
      kInvalidGpuQuantity,
      kRequestsLimitsMismatch,
      // classes
      kUnclassifiedGpuPod,
      kClassNotAllowed,
      kMissingGpuRequest,
      kGpuForbidden,
      kMaxPerContainer,
      kMaxPerPod,
      kSharedGpuOverOne,
      kMigProfileUnavailable,
      kPriorityClassNotAllowed,
      kPriorityClassMissing,
      kRuntimeClassNotAllowed,
      kRequiredLabelMissing,
      kGpuPoolWithoutRequest,
      // field guards, nodeSelector placement, checkpoints
      kVisibleDevicesWithoutGpu,
      kNodeAffinityForbidden,
      kNodeSelectorForbidden,
      kNodeNameForbidden,
      kTolerationForbidden,
      kNodeSelectorConflict,
      kCheckpointMissing,
      kCheckpointDangling,
      kCheckpointInvalid,
      // effects in require mode
      kTolerationRequired,
      kNodePlacementRequired,
      kPriorityClassRequired,
      kRuntimeClassRequired,
      kResourceNameRequired,
      kResourceRequestsRequired,
      // container resources per class
      kContainerResourcesMissing,
      kQosNotGuaranteed,
      kQosBestEffort,
      kResourcesPerGpuExceeded,
      kLimitRequestRatioExceeded,
      kRequiredEnvMissing,
      kContainerResourcesExceeded,
      // quotas
      kQuota,
      kQuotaUnavailable,
      // placement and capacity (node data)
      kPlacementConflict,
      kNoCapacity,
      kGpuStranding,
      // DRA claims
      kDraClaimUnresolved,
      kDeviceClassNotAllowed,
      kDraClaimSizeUnknown,
  };
  return ids;
}

}  // namespace gpua::policy
