// spec.fieldGuards: checks every judged pod gets whatever its class (the GPU ones on by default,
// the placement ones opt-in), and the NVIDIA_VISIBLE_DEVICES=void the engine writes into non-GPU
// containers of GPU pods.
#include <algorithm>

#include "policy/parse.hpp"

namespace gpua::policy {

namespace {

// forbidTolerations: taint keys, each once. A toleration of every taint (no key, operator
// Exists) tolerates them all, so it is judged too; an empty key here would mean nothing.
std::vector<std::string> parseTaintKeys(YamlReader& r, const MapReader& m) {
  std::vector<std::string> out;
  const YAML::Node list = m.get("forbidTolerations");
  if (!r.expectList(list, m.path("forbidTolerations"))) return out;
  for (std::size_t i = 0; i < list.size(); ++i) {
    const std::string p = indexPath(m.path("forbidTolerations"), i);
    auto key = r.name(list[i], p);
    if (!key) continue;
    if (std::find(out.begin(), out.end(), *key) != out.end()) {
      r.error(list[i], p, "'" + *key + "' is listed twice");
      continue;
    }
    out.push_back(*key);
  }
  return out;
}

}  // namespace

void parseFieldGuards(YamlReader& r, const YAML::Node& node, const std::string& path,
                      Draft& draft) {
  MapReader m(r, node, path,
              {"gpuPoolTargeting", "visibleDevicesEnv", "voidNonGpuContainers",
               "forbidNodeAffinity", "forbidNodeSelector", "forbidNodeName", "forbidTolerations"});
  if (!m.valid()) return;
  FieldGuards& g = draft.set.fieldGuards;
  auto flag = [&](const char* key, bool& out) {
    if (m.has(key)) out = r.boolean(m.get(key), m.path(key)).value_or(out);
  };
  flag("gpuPoolTargeting", g.gpuPoolTargeting);
  flag("visibleDevicesEnv", g.visibleDevicesEnv);
  flag("voidNonGpuContainers", g.voidNonGpuContainers);
  flag("forbidNodeAffinity", g.forbidNodeAffinity);
  flag("forbidNodeSelector", g.forbidNodeSelector);
  flag("forbidNodeName", g.forbidNodeName);
  if (m.has("forbidTolerations")) g.forbidTolerations = parseTaintKeys(r, m);
}

}  // namespace gpua::policy
