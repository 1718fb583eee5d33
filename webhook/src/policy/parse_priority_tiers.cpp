// spec.priorityTiers: the cluster's PriorityClasses as the policy knows them (value and
// preemptionPolicy), so review can say whether a class's pods may be preempted, and a tier
// can require its pods to declare checkpoints.
#include "policy/parse.hpp"

namespace gpua::policy {

namespace {

void parseTier(YamlReader& r, const YAML::Node& node, const std::string& path, Draft& draft) {
  MapReader m(r, node, path, {"name", "value", "preemptionPolicy", "requireCheckpoint"});
  if (!m.valid()) return;
  PriorityTier tier;
  auto name = m.require("name") ? r.name(m.get("name"), m.path("name")) : std::nullopt;
  // PriorityClass.value: user classes may go up to one billion, system classes above.
  if (m.require("value"))
    tier.value = r.integer(m.get("value"), m.path("value"), -2147483648).value_or(0);
  if (m.has("value") && tier.value > 1000000000)
    r.error(m.get("value"), m.path("value"),
            "must be at most 1000000000, got " + std::to_string(tier.value),
            "values above one billion are reserved for system-* priority classes");
  if (m.has("preemptionPolicy")) {
    using P = PriorityTier::Preemption;
    tier.preemptionPolicy =
        r.enumeration<P>(m.get("preemptionPolicy"), m.path("preemptionPolicy"),
                         {{"PreemptLowerPriority", P::PreemptLowerPriority}, {"Never", P::Never}})
            .value_or(tier.preemptionPolicy);
  }
  if (m.has("requireCheckpoint"))
    tier.requireCheckpoint =
        parseCheckpointRule(r, m.get("requireCheckpoint"), m.path("requireCheckpoint"));
  if (!name) return;
  if (name->starts_with("system-"))
    r.error(m.get("name"), m.path("name"),
            "priority classes starting with 'system-' are reserved for Kubernetes components");
  tier.name = *name;
  draft.set.priorityTiers.push_back(std::move(tier));
  draft.priorityTiers.push_back(m.loc("name"));
}

}  // namespace

void parsePriorityTiers(YamlReader& r, const YAML::Node& node, const std::string& path,
                        Draft& draft) {
  if (!r.expectList(node, path)) return;
  for (std::size_t i = 0; i < node.size(); ++i) parseTier(r, node[i], indexPath(path, i), draft);
}

}  // namespace gpua::policy
