#include "engine/core/json_util.hpp"
#include "engine/core/text.hpp"
#include "engine/mutate/mutation.hpp"
#include "engine/pod/device_env.hpp"

namespace gpua::engine {

namespace {

// {"name":"NVIDIA_VISIBLE_DEVICES","value":"void"}, inside `open` and `close`.
std::string voidEnv(std::string_view open, std::string_view close) {
  std::string out(open);
  out.append(R"({"name":")").append(kVisibleDevicesVar).append(R"(","value":")");
  out.append(kNoDevicesValue).append(R"("})").append(close);
  return out;
}

bool hasVisibleDevices(const rapidjson::Value* env) {
  if (env == nullptr) return false;
  for (const auto& e : env->GetArray())
    if (json::stringMember(&e, "name") == kVisibleDevicesVar) return true;
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
      out.add(containerPath(c) + "/env", voidEnv("[", "]"));
    } else {
      out.add(containerPath(c) + "/env/-", voidEnv("", ""));
    }
    names.push_back(text::oneLine(c.name, 40));
  }
  if (!names.empty())
    out.changes.push_back(std::string(kVisibleDevicesVar) + "=" + std::string(kNoDevicesValue) +
                          " in " + text::join(names, "/"));
}

}  // namespace gpua::engine
