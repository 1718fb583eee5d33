#include "policy/rule_ids.hpp"

namespace gpua::policy {

const std::vector<std::string>& knownRuleIds() {
  static const std::vector<std::string> ids = {
      // pod shape and GPU requests
      "invalid-pod", "invalid-gpu-quantity", "requests-limits-mismatch",
      // classes
      "unclassified-gpu-pod", "class-not-allowed", "missing-gpu-request", "gpu-forbidden",
      "max-per-container", "max-per-pod", "shared-gpu-over-one", "mig-profile-unavailable",
      "priority-class-not-allowed", "priority-class-missing", "runtime-class-not-allowed",
      "gpu-pool-without-request",
      // field guards, nodeSelector placement, checkpoints
      "visible-devices-without-gpu", "node-selector-conflict", "checkpoint-missing",
      "checkpoint-dangling", "checkpoint-invalid",
      // effects in require mode
      "toleration-required", "node-placement-required", "priority-class-required",
      "runtime-class-required", "resource-name-required", "resource-requests-required",
      // container resources per class
      "container-resources-missing", "qos-not-guaranteed", "qos-best-effort",
      "resources-per-gpu-exceeded", "limit-request-ratio-exceeded", "required-env-missing",
      // quotas
      "quota", "quota-unavailable",
      // placement and capacity (node data)
      "placement-conflict", "no-capacity", "gpu-stranding"};
  return ids;
}

}  // namespace gpua::policy
