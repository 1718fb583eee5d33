// The keys of the capacity checks: spec.capacityCheck and classes[].capacityCheck, and the
// stranding factor classes[].maxShareOfNodePerGpu / pools[].maxShareOfNodePerGpu.
#include "policy/parse.hpp"

namespace gpua::policy {

std::optional<CapacityCheck> parseCapacityCheck(YamlReader& r, const YAML::Node& node,
                                                const std::string& path) {
  return r.enumeration<CapacityCheck>(
      node, path,
      {{"deny", CapacityCheck::Deny}, {"warn", CapacityCheck::Warn}, {"off", CapacityCheck::Off}});
}

std::optional<double> parseShareFactor(YamlReader& r, const YAML::Node& node,
                                       const std::string& path) {
  // Below 1 a pod could not even take its own share of a node; that is a typo, not a policy.
  return r.number(node, path, 1.0);
}

}  // namespace gpua::policy
