#include "engine/core/json_util.hpp"
#include "engine/mutate/mutation.hpp"

namespace gpua::engine {

// The pools are the ones the pod is placed on: GPU pools for a GPU pod, CPU pools for a pod
// without GPUs that its class places.
void mutateRuntimeClass(const MutationContext& ctx, MutationOutput& out) {
  const std::string* wanted = nullptr;
  for (const auto* pool : ctx.pools)
    if (pool->runtimeClassName && wanted == nullptr) wanted = &*pool->runtimeClassName;
  if (wanted == nullptr) return;
  const rapidjson::Value* current = json::member(ctx.pod.spec, "runtimeClassName");
  if (current != nullptr && !json::view(*current).empty()) return;  // the user's choice stands
  if (current != nullptr) {
    out.replace("/spec/runtimeClassName", json::quoteString(*wanted));
  } else {
    out.add("/spec/runtimeClassName", json::quoteString(*wanted));
  }
  out.changes.push_back("runtimeClassName " + *wanted);
}

void mutateDeadline(const MutationContext& ctx, MutationOutput& out) {
  if (!ctx.cls.maxRunSeconds) return;
  const int64_t max = *ctx.cls.maxRunSeconds;
  const rapidjson::Value* current = json::member(ctx.pod.spec, "activeDeadlineSeconds");
  if (current != nullptr && current->IsInt64() && current->GetInt64() <= max) return;
  if (current != nullptr) {
    out.replace("/spec/activeDeadlineSeconds", std::to_string(max));
  } else {
    out.add("/spec/activeDeadlineSeconds", std::to_string(max));
  }
  out.changes.push_back("activeDeadlineSeconds " + std::to_string(max));
}

void mutateRuntime(const MutationContext& ctx, MutationOutput& out) {
  mutateRuntimeClass(ctx, out);
  mutateDeadline(ctx, out);
}

}  // namespace gpua::engine
