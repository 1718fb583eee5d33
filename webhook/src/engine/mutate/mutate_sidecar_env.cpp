#include "engine/core/json_util.hpp"
#include "engine/core/text.hpp"
#include "engine/mutate/mutation.hpp"

namespace gpua::engine {

namespace {

constexpr std::string_view kVisibleDevices = "NVIDIA_VISIBLE_DEVICES";
constexpr std::string_view kVoidEnv = R"({"name":"NVIDIA_VISIBLE_DEVICES","value":"void"})";

bool hasVisibleDevices(const rapidjson::Value* env) {
  if (env == nullptr) return false;
  for (const auto& e : env->GetArray())
    if (json::stringMember(&e, "name") == kVisibleDevices) return true;
  return false;
}

}  // namespace

void mutateSidecarEnv(const MutationContext& ctx, MutationOutput& out) {
  // Only a GPU pod lands on a GPU node, where NVIDIA images would otherwise see every GPU.
  if (!ctx.gpu.hasGpu || !ctx.policy.fieldGuards.voidNonGpuContainers) return;
  std::vector<std::string> names;
  for (const auto& c : ctx.gpu.containers) {
    if (c.wantsGpu()) continue;
    const rapidjson::Value* env = json::arrayMember(c.container, "env");
    if (hasVisibleDevices(env)) continue;
    if (env == nullptr) {
      out.add(containerPath(c) + "/env", "[" + std::string(kVoidEnv) + "]");
    } else {
      out.add(containerPath(c) + "/env/-", std::string(kVoidEnv));
    }
    names.push_back(text::oneLine(c.name, 40));
  }
  if (!names.empty())
    out.changes.push_back("NVIDIA_VISIBLE_DEVICES=void in " + text::join(names, "/"));
}

}  // namespace gpua::engine
