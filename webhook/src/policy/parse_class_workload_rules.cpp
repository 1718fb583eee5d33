// Class keys beyond the GPU rules: cpuPools and placement (where the pods go), requireCheckpoint
// and containers (what the containers of the pods in its scope must carry). References (pool names)
// are resolved with the rest of the policy in resolve_placement_and_tiers.cpp.
#include "policy/parse.hpp"

namespace gpua::policy {

namespace {

void parseCpuPoolNames(YamlReader& r, const MapReader& m, WorkloadClass& c, ClassOrigin& origin) {
  const YAML::Node list = m.get("cpuPools");
  if (!r.expectList(list, m.path("cpuPools"))) return;
  for (std::size_t i = 0; i < list.size(); ++i) {
    const std::string p = indexPath(m.path("cpuPools"), i);
    if (auto pool = r.name(list[i], p)) {
      c.cpuPools.push_back(*pool);
      origin.cpuPools.push_back(r.loc(list[i], p));
    }
  }
  if (c.gpus.request == GpuRequest::Required)
    r.error(list, m.path("cpuPools"),
            "cpuPools need a class whose pods may ask for no GPU, but gpus.request is required",
            "set gpus.request: optional (GPU pods go to pools, CPU pods to cpuPools) or forbidden");
}

void parsePlacement(YamlReader& r, const MapReader& cls, WorkloadClass& c) {
  MapReader m(r, cls.get("placement"), cls.path("placement"), {"via", "onConflict"});
  if (!m.valid()) return;
  using Via = Placement::Via;
  using OnConflict = Placement::OnConflict;
  if (m.has("via"))
    c.placement.via = r.enumeration<Via>(m.get("via"), m.path("via"),
                                         {{"nodeAffinity", Via::NodeAffinity},
                                          {"nodeSelector", Via::NodeSelector}})
                          .value_or(c.placement.via);
  if (m.has("onConflict"))
    c.placement.onConflict = r.enumeration<OnConflict>(m.get("onConflict"), m.path("onConflict"),
                                                       {{"keep", OnConflict::Keep},
                                                        {"overwrite", OnConflict::Overwrite},
                                                        {"deny", OnConflict::Deny}})
                                 .value_or(c.placement.onConflict);
  if (m.has("onConflict") && c.placement.via != Via::NodeSelector)
    r.error(m.get("onConflict"), m.path("onConflict"), "onConflict needs via: nodeSelector",
            "with node affinity the pool is ANDed into the pod's terms; a contradicting "
            "nodeSelector is a placement conflict");
}

// A class whose pods have no GPUs judges them by its containers rules, but a rule per GPU (or
// one scoped to GPU pods) would never apply: say so rather than ignore it.
void checkGpuLessContainers(YamlReader& r, const MapReader& m, const ContainerRulesOverrides& c) {
  const YAML::Node node = m.get("containers");
  const std::string path = m.path("containers");
  for (const char* key : {"maxPerGpu", "defaultRequestsPerGpu"})
    if (node.IsMap() && node[key])
      r.error(node[key], path + "." + key,
              std::string(key) + " needs GPUs, but gpus.request is forbidden",
              "remove it, or let the class take GPUs (gpus.request: optional)");
  if (c.appliesTo == RuleScope::GpuPods)
    refuseGpuPodScopeWithoutGpus(r, node["appliesTo"], path + ".appliesTo", "");
}

}  // namespace

std::optional<CheckpointRule> parseCheckpointRule(YamlReader& r, const YAML::Node& node,
                                                  const std::string& path) {
  MapReader m(r, node, path, {"volumes"});
  if (!m.valid()) return std::nullopt;
  CheckpointRule rule;
  if (m.has("volumes")) rule.volumes = r.stringList(m.get("volumes"), m.path("volumes"));
  return rule;
}

void parseClassWorkloadRules(YamlReader& r, const MapReader& m, WorkloadClass& c,
                             ClassOrigin& origin) {
  origin.placement = m.has("placement") ? m.loc("placement") : m.loc();
  if (m.has("cpuPools")) parseCpuPoolNames(r, m, c, origin);
  if (m.has("placement")) parsePlacement(r, m, c);
  if (m.has("requireCheckpoint"))
    c.requireCheckpoint =
        parseCheckpointRule(r, m.get("requireCheckpoint"), m.path("requireCheckpoint"));
  origin.containersAt = m.has("containers") ? m.loc("containers") : m.loc();
  if (m.has("containers")) {
    origin.containers = parseContainerRules(r, m.get("containers"), m.path("containers"));
    if (origin.containers.appliesTo == RuleScope::AllPods) {
      refuseAllPodsInAClass(r, m.get("containers")["appliesTo"],
                            m.path("containers") + ".appliesTo");
      origin.containers.appliesTo.reset();
    }
    if (c.gpus.request == GpuRequest::Forbidden) checkGpuLessContainers(r, m, origin.containers);
  }
}

}  // namespace gpua::policy
