// The mutations a classified pod receives. Each mutator reads the pod in place, appends the
// JSON Patch ops it needs (creating a missing parent whole, since the apiserver's patcher
// refuses to add into a missing parent) and a few words per change. Every mutator is
// idempotent: run on its own output it emits nothing.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "engine/classify/class_placement.hpp"
#include "engine/classify/classify.hpp"
#include "engine/core/patch_op.hpp"
#include "engine/pod/gpu_request.hpp"
#include "engine/pod/pod_view.hpp"
#include "policy/policy_set.hpp"

namespace gpua::engine {

struct MutationContext {
  const PodView& pod;
  const PodGpu& gpu;
  const policy::PolicySet& policy;
  const policy::WorkloadClass& cls;
  PoolList pools;              // the class's pools, resolved
  std::string_view rewriteTo;  // nvidia.com/gpu is renamed to this; empty = no rewrite
};

// Ops and changes are written in place (the Decision's lists keep their memory from request to
// request): `op` hands out an op with its path set, whose valueJson the mutator appends to; the
// reference lasts until the next op is added.
struct MutationOutput {
  Patch& patch;
  TextList& changes;

  PatchOp& op(PatchOp::Kind kind, std::string_view path) {
    PatchOp& o = patch.next();
    o.kind = kind;
    o.path.append(path);
    return o;
  }
  void add(std::string_view path, std::string_view valueJson) {
    op(PatchOp::Kind::Add, path).valueJson.append(valueJson);
  }
  void replace(std::string_view path, std::string_view valueJson) {
    op(PatchOp::Kind::Replace, path).valueJson.append(valueJson);
  }
  void remove(std::string_view path) { op(PatchOp::Kind::Remove, path); }
  // A change's words, concatenated into a kept string.
  template <typename... Parts>
  void change(const Parts&... parts) {
    std::string& c = changes.next();
    (c.append(std::string_view(parts)), ...);
  }
};

// The resource name nvidia.com/gpu is rewritten to for this class, or empty; `isTemplate`: a
// workload's pod template (see mutate_resources.cpp for what differs).
std::string_view gpuRewriteTarget(const policy::WorkloadClass& cls, const PodGpu& gpu,
                                  bool isTemplate = false);

// Renames nvidia.com/gpu to the class's resource (requests and limits, all containers) and adds
// limits equal to requests where only requests are given.
void mutateResources(const MutationContext& ctx, MutationOutput& out);
// The class's container defaults: requests (per GPU x the container's GPUs in a GPU container,
// else defaultRequests) where a container sets neither a request nor a limit of the resource,
// and limits copied from requests (limitsFromRequests) where it sets no limit.
void mutateResourceRequests(const MutationContext& ctx, MutationOutput& out);
// ANDs each pool's nodeSelector into every required nodeSelectorTerm (one term per pool).
void mutateAffinity(const MutationContext& ctx, MutationOutput& out);
// The class's placement: mutateAffinity, or mutateNodeSelector for placement via nodeSelector.
void mutatePlacement(const MutationContext& ctx, MutationOutput& out);
// Writes the pool's nodeSelector labels into spec.nodeSelector (placement.via: nodeSelector),
// resolving a key the pod set to another value by placement.onConflict.
void mutateNodeSelector(const MutationContext& ctx, MutationOutput& out);
// The toleration mutateTolerations writes for `taint`, as JSON.
std::string tolerationJson(const policy::Taint& taint);
// Tolerates every pool taint not already tolerated.
void mutateTolerations(const MutationContext& ctx, MutationOutput& out);
// Sets the class's priorityClassName, dropping the priority the Priority plugin computed.
void mutatePriority(const MutationContext& ctx, MutationOutput& out);
// runtimeClassName from the pool (GPU pods only) and activeDeadlineSeconds from the class's
// maxRunSeconds: mutateRuntimeClass then mutateDeadline.
void mutateRuntime(const MutationContext& ctx, MutationOutput& out);
void mutateRuntimeClass(const MutationContext& ctx, MutationOutput& out);
void mutateDeadline(const MutationContext& ctx, MutationOutput& out);
// NVIDIA_VISIBLE_DEVICES=void for containers of a GPU pod that ask for no GPU.
void mutateSidecarEnv(const MutationContext& ctx, MutationOutput& out);
// gpu-admission.io/class and gpu-admission.io/policy annotations.
void mutateAnnotations(const MutationContext& ctx, MutationOutput& out);

// "/spec/containers/2" or "/spec/initContainers/0"
std::string containerPath(const ContainerGpu& c);

}  // namespace gpua::engine
