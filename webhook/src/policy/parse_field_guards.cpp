// spec.fieldGuards: checks every judged pod gets whatever its class (on by default), and the
// NVIDIA_VISIBLE_DEVICES=void the engine writes into non-GPU containers of GPU pods.
#include "policy/parse.hpp"

namespace gpua::policy {

void parseFieldGuards(YamlReader& r, const YAML::Node& node, const std::string& path,
                      Draft& draft) {
  MapReader m(r, node, path, {"gpuPoolTargeting", "visibleDevicesEnv", "voidNonGpuContainers"});
  if (!m.valid()) return;
  FieldGuards& g = draft.set.fieldGuards;
  auto flag = [&](const char* key, bool& out) {
    if (m.has(key)) out = r.boolean(m.get(key), m.path(key)).value_or(out);
  };
  flag("gpuPoolTargeting", g.gpuPoolTargeting);
  flag("visibleDevicesEnv", g.visibleDevicesEnv);
  flag("voidNonGpuContainers", g.voidNonGpuContainers);
}

}  // namespace gpua::policy
