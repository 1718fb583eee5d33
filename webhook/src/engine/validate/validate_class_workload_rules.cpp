// The class rules that come after the GPU rules of validate_class.cpp: container
// resources, placement conflicts with nodeSelector placement, and checkpoint declarations of
// preemptible pods.
#include "engine/classify/class_placement.hpp"
#include "engine/classify/priority_tier.hpp"
#include "engine/core/text.hpp"
#include "engine/validate/validate.hpp"

namespace gpua::engine {

namespace {

// The class's own rule wins over its priority tier's.
const policy::CheckpointRule* checkpointRule(const ValidationInput& in, std::string_view tierName,
                                             CheckpointReason& why) {
  if (in.cls.requireCheckpoint) {
    why = {" is in class ", in.cls.name, ", which requires a checkpoint,"};
    return &*in.cls.requireCheckpoint;
  }
  const policy::PriorityTier* tier = in.policy.findTier(tierName);
  if (tier == nullptr || !tier->requireCheckpoint) return nullptr;
  why = {" runs in priority tier ", tier->name, ", which requires a checkpoint,"};
  return &*tier->requireCheckpoint;
}

}  // namespace

void validateClassWorkloadRules(const ValidationInput& in, Violations& out) {
  validateContainerResources(in, out);
  if (!getsClassPlacement(in.cls, in.gpu)) return;
  checkNodeSelectorConflict(in.pod, in.cls,
                            in.gpu.hasGpu ? in.pools : cpuPoolsOf(in.cls, in.policy), out);
  CheckpointReason why;
  const std::string_view tier = effectivePriorityClass(in.pod, in.cls, in.policy, true);
  if (const policy::CheckpointRule* rule = checkpointRule(in, tier, why))
    checkCheckpoint(in.pod, *rule, why, out);
}

}  // namespace gpua::engine
