// spec.pools: node pools, their GPU model and how the GPUs are shared. Checks that need only
// the pool itself (model exists, MIG profiles exist on the model, replicas) are done here.
#include <algorithm>

#include "policy/edit_distance.hpp"
#include "policy/gpu_models.hpp"
#include "policy/parse.hpp"

namespace gpua::policy {

namespace {

std::vector<std::string> modelKeys() {
  std::vector<std::string> keys;
  for (const auto& m : gpuModels()) keys.push_back(m.key);
  return keys;
}

std::optional<Taint> parseTaint(YamlReader& r, const YAML::Node& node, const std::string& path) {
  MapReader m(r, node, path, {"key", "value", "effect"});
  if (!m.valid() || !m.require("key")) return std::nullopt;
  Taint t;
  auto key = r.name(m.get("key"), m.path("key"));
  if (m.has("value")) t.value = r.string(m.get("value"), m.path("value")).value_or("");
  if (m.has("effect")) {
    auto effect = r.enumeration<std::string>(m.get("effect"), m.path("effect"),
                                             {{"NoSchedule", "NoSchedule"},
                                              {"PreferNoSchedule", "PreferNoSchedule"},
                                              {"NoExecute", "NoExecute"}});
    if (!effect) return std::nullopt;
    t.effect = *effect;
  }
  if (!key) return std::nullopt;
  t.key = *key;
  return t;
}

}  // namespace

// Shared with spec.cpuPools (parse_cpu_pools.cpp).
void parseTaints(YamlReader& r, const YAML::Node& node, const std::string& path, Pool& pool) {
  if (!r.expectList(node, path)) return;
  for (std::size_t i = 0; i < node.size(); ++i)
    if (auto t = parseTaint(r, node[i], indexPath(path, i))) pool.taints.push_back(*t);
}

namespace {

void parseMigProfiles(YamlReader& r, const MapReader& m, Pool& pool, PoolOrigin& origin) {
  const YAML::Node list = m.get("migProfiles");
  if (!r.expectList(list, m.path("migProfiles"))) return;
  for (std::size_t i = 0; i < list.size(); ++i) {
    const std::string path = indexPath(m.path("migProfiles"), i);
    if (auto p = r.name(list[i], path)) {
      pool.migProfiles.push_back(*p);
      origin.migProfiles.push_back(r.loc(list[i], path));
    }
  }
}

// Prefers a profile with the same compute slices: "3g.20gb" on an 80GB model -> "3g.40gb".
std::string profileSuggestion(const std::string& profile, const GpuModel& model) {
  std::vector<std::string> sameSlices;
  const auto slices = migProfileSlices(profile);
  for (const auto& p : model.migProfiles)
    if (slices && migProfileSlices(p) == slices) sameSlices.push_back(p);
  const std::string best = nearest(profile, sameSlices);
  if (!best.empty()) return "did you mean '" + best + "'?";
  return "profiles of " + model.key + ": " + joinNames(model.migProfiles);
}

// Sharing-specific rules, once the model is known.
void checkSharing(YamlReader& r, const MapReader& m, const Pool& pool, const GpuModel& model) {
  const YAML::Node sharingNode = m.has("sharing") ? m.get("sharing") : m.node();
  if (pool.sharing == Sharing::Mig) {
    if (!model.migCapable()) {
      r.error(sharingNode, m.path("sharing"), "GPU model " + model.key + " does not support MIG",
              "MIG models: A100-40GB, A100-80GB, H100-80GB, H100-NVL, H200, A30; use "
              "exclusive, time-slicing or mps");
      return;
    }
    const YAML::Node list = m.get("migProfiles");
    const std::string hint = "profiles of " + model.key + ": " + joinNames(model.migProfiles);
    if (!m.has("migProfiles"))
      r.error(m.node(), m.path("migProfiles"), "a MIG pool needs migProfiles", hint);
    else if (list.IsSequence() && list.size() == 0)
      r.error(list, m.path("migProfiles"), "migProfiles must not be empty", hint);
    for (std::size_t i = 0; list.IsSequence() && i < list.size(); ++i) {
      if (!list[i].IsScalar()) continue;
      const std::string& p = list[i].Scalar();
      if (std::find(model.migProfiles.begin(), model.migProfiles.end(), p) ==
          model.migProfiles.end())
        r.error(list[i], indexPath(m.path("migProfiles"), i),
                "MIG profile '" + p + "' does not exist on " + model.key,
                profileSuggestion(p, model));
    }
  }
}

void checkSharingFields(YamlReader& r, const MapReader& m, const Pool& pool) {
  const bool sliced = pool.sharing == Sharing::TimeSlicing || pool.sharing == Sharing::Mps;
  if (pool.sharing != Sharing::Mig && m.has("migProfiles"))
    r.error(m.get("migProfiles"), m.path("migProfiles"), "migProfiles needs sharing: mig");
  if (pool.sharing == Sharing::Mig && m.has("resource"))
    r.error(m.get("resource"), m.path("resource"),
            "a MIG pool's resources are named by profile (nvidia.com/mig-<profile>)",
            "remove resource; classes pick a profile with gpus.migProfile");
  if (!sliced && m.has("replicas"))
    r.error(m.get("replicas"), m.path("replicas"), "replicas needs sharing: time-slicing or mps");
  if (sliced && !m.has("replicas"))
    r.error(m.node(), m.path("replicas"),
            "missing required field 'replicas' for sharing: " + m.get("sharing").Scalar(),
            "set the device plugin's replicas per GPU (at least 2)");
}

void parsePool(YamlReader& r, const YAML::Node& node, const std::string& path, Draft& draft) {
  MapReader m(r, node, path,
              {"name", "gpu", "sharing", "migProfiles", "replicas", "resource", "nodeSelector",
               "taints", "runtimeClassName", "matchExpressions", "maxShareOfNodePerGpu"});
  if (!m.valid()) return;
  const std::size_t errorsBefore = r.diagnostics().size();
  Pool pool;
  PoolOrigin origin{m.loc(),           m.loc("name"),       m.loc("gpu"), m.loc("sharing"),
                    m.loc("replicas"), m.loc("resource"),   {},           m.has("replicas"),
                    m.has("resource"), m.has("migProfiles")};
  auto name = m.require("name") ? r.name(m.get("name"), m.path("name")) : std::nullopt;
  auto gpu = m.require("gpu") ? r.name(m.get("gpu"), m.path("gpu")) : std::nullopt;
  std::optional<Sharing> sharing = Sharing::Exclusive;
  if (m.has("sharing"))
    sharing = r.enumeration<Sharing>(m.get("sharing"), m.path("sharing"),
                                     {{"exclusive", Sharing::Exclusive},
                                      {"mig", Sharing::Mig},
                                      {"time-slicing", Sharing::TimeSlicing},
                                      {"mps", Sharing::Mps}});
  if (m.has("migProfiles")) parseMigProfiles(r, m, pool, origin);
  if (m.has("replicas"))
    pool.replicas = r.integer(m.get("replicas"), m.path("replicas"), 2).value_or(pool.replicas);
  if (m.has("resource"))
    pool.resource = r.name(m.get("resource"), m.path("resource")).value_or(pool.resource);
  if (m.has("nodeSelector"))
    pool.nodeSelector = r.stringMap(m.get("nodeSelector"), m.path("nodeSelector"));
  if (m.has("taints")) parseTaints(r, m.get("taints"), m.path("taints"), pool);
  if (m.has("matchExpressions"))
    pool.matchExpressions =
        parseNodeRequirements(r, m.get("matchExpressions"), m.path("matchExpressions"));
  if (m.has("runtimeClassName"))
    pool.runtimeClassName = r.name(m.get("runtimeClassName"), m.path("runtimeClassName"));
  if (m.has("maxShareOfNodePerGpu"))
    pool.maxShareOfNodePerGpu =
        parseShareFactor(r, m.get("maxShareOfNodePerGpu"), m.path("maxShareOfNodePerGpu"));

  const GpuModel* model = gpu ? findGpuModel(*gpu) : nullptr;
  if (gpu && !model)
    r.error(m.get("gpu"), m.path("gpu"), "unknown GPU model '" + *gpu + "'",
            suggestion(*gpu, modelKeys()));
  if (sharing) {
    pool.sharing = *sharing;
    checkSharingFields(r, m, pool);
    if (model) checkSharing(r, m, pool, *model);
  }
  if (!name) return;
  origin.broken = r.diagnostics().size() != errorsBefore;
  pool.name = *name;
  pool.gpu = gpu.value_or("");
  draft.set.pools.push_back(std::move(pool));
  draft.pools.push_back(std::move(origin));
}

}  // namespace

void parsePools(YamlReader& r, const YAML::Node& node, const std::string& path, Draft& draft) {
  if (!r.expectList(node, path)) return;
  for (std::size_t i = 0; i < node.size(); ++i) parsePool(r, node[i], indexPath(path, i), draft);
}

}  // namespace gpua::policy
