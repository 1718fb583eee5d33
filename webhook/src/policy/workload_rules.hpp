// Policy constructs for placement style, checkpoints, priority tiers and field guards. Kept apart
// from policy_set.hpp so each concept has its own types; PolicySet, Pool and WorkloadClass hold
// them.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gpua::policy {

// How a class writes its pools' placement into a pod.
struct Placement {
  // NodeAffinity: ANDed into every required nodeSelectorTerm (the default).
  // NodeSelector: written into spec.nodeSelector (one pool, equality labels only).
  enum class Via { NodeAffinity, NodeSelector } via = Via::NodeAffinity;
  // A pod's spec.nodeSelector already holds a pool key with another value.
  //   Keep: the pod's value stays and the conflict is a violation (node-selector-conflict).
  //   Overwrite: the pool's value replaces it.
  //   Deny: a violation, and the pod's nodeSelector is left entirely as it is.
  enum class OnConflict { Keep, Overwrite, Deny } onConflict = OnConflict::Keep;
};

// Where a preemptible pod declares its checkpoints: the annotation
// gpu-admission.io/checkpoint (pvc:<claim> of a mounted volume, or a URI), or a mounted volume
// with one of `volumes` as its name.
struct CheckpointRule {
  std::vector<std::string> volumes;
};

inline constexpr const char* kCheckpointAnnotation = "gpu-admission.io/checkpoint";
// The annotation value that names a PersistentVolumeClaim: pvc:<claim>.
inline constexpr std::string_view kCheckpointPvcPrefix = "pvc:";

// A PriorityClass of the cluster, as the policy knows it: what review shows and what decides
// whether a class's pods can be preempted.
struct PriorityTier {
  std::string name;  // the PriorityClass name
  int64_t value = 0;
  enum class Preemption {
    PreemptLowerPriority,
    Never
  } preemptionPolicy = Preemption::PreemptLowerPriority;
  std::optional<CheckpointRule> requireCheckpoint;  // pods in this tier must declare one
};

// A label the pods of a class or a namespace must carry (requiredLabels): any value, or one of
// `values` ("" is a value).
struct RequiredLabel {
  std::string key;
  std::vector<std::string> values;  // empty = any value
};

// Field guards for every pod the policy judges (on by default).
struct FieldGuards {
  // gpu-pool-without-request: a pod without GPUs aiming at a GPU pool.
  bool gpuPoolTargeting = true;
  // visible-devices-without-gpu: a container without a GPU that sets NVIDIA_VISIBLE_DEVICES or
  // CUDA_VISIBLE_DEVICES to anything but void.
  bool visibleDevicesEnv = true;
  // NVIDIA_VISIBLE_DEVICES=void written into the containers of a GPU pod that ask for no GPU.
  bool voidNonGpuContainers = true;
  // Placement the pod's author chose, forbidden on every judged pod (off by default). What the
  // pod's class writes or requires (its pools' requirements, labels and taint tolerations) is
  // the class's, not the author's, and never counts.
  bool forbidNodeAffinity = false;  // node-affinity-forbidden: spec.affinity.nodeAffinity
  bool forbidNodeSelector = false;  // node-selector-forbidden: spec.nodeSelector
  bool forbidNodeName = false;      // node-name-forbidden: spec.nodeName
  std::vector<std::string> forbidTolerations;  // toleration-forbidden: tolerating these taint keys

  bool guardsPlacement() const {
    return forbidNodeAffinity || forbidNodeSelector || forbidNodeName || !forbidTolerations.empty();
  }
};

}  // namespace gpua::policy
