#include "engine/validate/field_guards.hpp"
#include "policy/rule_ids.hpp"

#include "engine/core/json_util.hpp"
#include "engine/core/text.hpp"

namespace gpua::engine {

namespace rules = policy::rules;

namespace {

constexpr std::string_view kDeviceVariables[] = {"NVIDIA_VISIBLE_DEVICES", "CUDA_VISIBLE_DEVICES"};

bool isDeviceVariable(std::string_view name) {
  for (const auto v : kDeviceVariables)
    if (name == v) return true;
  return false;
}

// What hides every GPU: void (the NVIDIA runtime's "no GPU"), none (no GPU, only the driver
// libraries), or an empty value (the runtime then behaves like runc). A value from a ConfigMap
// or Secret cannot be judged here, so it counts as exposing GPUs.
bool hidesGpus(const rapidjson::Value& var) {
  if (json::member(&var, "valueFrom") != nullptr) return false;
  const std::string_view value = json::stringMember(&var, "value");
  return value.empty() || value == "void" || value == "none";
}

// The first variable of `container` that exposes GPUs, or null.
const rapidjson::Value* exposingVariable(const rapidjson::Value& container) {
  const rapidjson::Value* env = json::arrayMember(&container, "env");
  if (env == nullptr) return nullptr;
  for (const auto& var : env->GetArray())
    if (isDeviceVariable(json::stringMember(&var, "name")) && !hidesGpus(var)) return &var;
  return nullptr;
}

std::string shownValue(const rapidjson::Value& var) {
  if (json::member(&var, "valueFrom") != nullptr) return "a value from valueFrom";
  return text::quoted(text::oneLine(json::stringMember(&var, "value"), 40));
}

}  // namespace

void checkVisibleDevicesEnv(const PodView& pod, const PodGpu& gpu, const policy::PolicySet& policy,
                            std::vector<Violation>& out) {
  if (!policy.fieldGuards.visibleDevicesEnv) return;
  for (const auto& c : gpu.containers) {
    if (c.wantsGpu()) continue;
    const rapidjson::Value* var = exposingVariable(*c.container);
    if (var == nullptr) continue;
    const std::string name(json::stringMember(var, "name"));
    out.push_back({rules::kVisibleDevicesWithoutGpu,
                   pod.subject + " " + containerLabel(c) + " sets " + name + " to " +
                       shownValue(*var) +
                       " but asks for no GPU, which would hand it the node's GPUs behind the "
                       "device plugin's back: request the GPU in resources.limits, or remove " +
                       name + " (or set it to void)"});
    return;  // one finding explains it
  }
}

}  // namespace gpua::engine
