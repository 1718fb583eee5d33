#include "engine/core/json_util.hpp"
#include "engine/mutate/mutation.hpp"

namespace gpua::engine {

void mutatePriority(const MutationContext& ctx, MutationOutput& out) {
  if (!ctx.cls.priorityClassName) return;
  const std::string& wanted = *ctx.cls.priorityClassName;
  const rapidjson::Value* current = json::member(ctx.pod.spec, "priorityClassName");
  const std::string_view name = current != nullptr ? json::view(*current) : std::string_view();
  if (name == wanted) return;
  // The Priority plugin may have written the cluster default: that is not the user's choice.
  const bool userChosen = !name.empty() && !(ctx.policy.globalDefaultPriorityClass &&
                                             *ctx.policy.globalDefaultPriorityClass == name);
  if (userChosen && !ctx.cls.overridePriorityClass) return;
  json::appendQuoted(out.op(current != nullptr ? PatchOp::Kind::Replace : PatchOp::Kind::Add,
                            "/spec/priorityClassName")
                         .valueJson,
                     wanted);
  // The plugin already resolved these from the old class; it refills them on reinvocation.
  if (json::member(ctx.pod.spec, "priority") != nullptr) out.remove("/spec/priority");
  if (json::member(ctx.pod.spec, "preemptionPolicy") != nullptr)
    out.remove("/spec/preemptionPolicy");
  out.change("priorityClassName ", wanted);
}

}  // namespace gpua::engine
