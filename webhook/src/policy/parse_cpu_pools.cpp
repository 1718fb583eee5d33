// spec.cpuPools: node pools without GPUs. Classes whose pods ask for no GPU name them (class
// key cpuPools) so data preparation lands on CPU nodes on purpose, with the same node
// affinity, tolerations, runtime class and priority class machinery as GPU pools.
#include "policy/parse.hpp"

namespace gpua::policy {

namespace {

void parseCpuPool(YamlReader& r, const YAML::Node& node, const std::string& path, Draft& draft) {
  MapReader m(r, node, path,
              {"name", "nodeSelector", "matchExpressions", "taints", "runtimeClassName"});
  if (!m.valid()) return;
  const std::size_t errorsBefore = r.diagnostics().size();
  Pool pool;
  pool.cpuOnly = true;
  pool.resource.clear();  // advertises no GPU resource
  auto name = m.require("name") ? r.name(m.get("name"), m.path("name")) : std::nullopt;
  if (m.has("nodeSelector"))
    pool.nodeSelector = r.stringMap(m.get("nodeSelector"), m.path("nodeSelector"));
  if (m.has("matchExpressions"))
    pool.matchExpressions =
        parseNodeRequirements(r, m.get("matchExpressions"), m.path("matchExpressions"));
  if (m.has("taints")) parseTaints(r, m.get("taints"), m.path("taints"), pool);
  if (m.has("runtimeClassName"))  // a sandbox (gVisor, Kata) for the pool's nodes, say
    pool.runtimeClassName = r.name(m.get("runtimeClassName"), m.path("runtimeClassName"));
  if (!name) return;
  if (pool.nodeSelector.empty() && pool.matchExpressions.empty() && pool.taints.empty() &&
      r.diagnostics().size() == errorsBefore)
    r.error(m.node(), path, "CPU pool '" + *name + "' selects no nodes",
            "give it a nodeSelector, matchExpressions or taints");
  PoolOrigin origin;
  origin.node = m.loc();
  origin.name = m.loc("name");
  origin.broken = r.diagnostics().size() != errorsBefore;
  pool.name = *name;
  draft.set.cpuPools.push_back(std::move(pool));
  draft.cpuPools.push_back(std::move(origin));
}

}  // namespace

void parseCpuPools(YamlReader& r, const YAML::Node& node, const std::string& path, Draft& draft) {
  if (!r.expectList(node, path)) return;
  for (std::size_t i = 0; i < node.size(); ++i) parseCpuPool(r, node[i], indexPath(path, i), draft);
}

}  // namespace gpua::policy
