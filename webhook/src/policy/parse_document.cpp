// The GpuPolicy envelope (apiVersion, kind, metadata, spec) and the spec's single-valued
// settings, which may be written in only one document across all files.
#include "policy/parse.hpp"

namespace gpua::policy {

namespace {

constexpr const char* kApiVersion = "gpu-admission.io/v1";
constexpr const char* kKind = "GpuPolicy";

// True when this is the first time `key` of the spec is set; otherwise reports where it was.
bool claimSetting(YamlReader& r, Draft& draft, const MapReader& spec, const std::string& key) {
  const std::string path = spec.path(key);
  auto& origin = draft.settings[path];
  if (origin.firstSetAt) {
    r.error(spec.get(key), path, "'" + path + "' is already set",
            "first set at " + origin.firstSetAt->where() + "; set it in one document only");
    return false;
  }
  origin.firstSetAt = spec.loc(key);
  return true;
}

void parseMetadata(YamlReader& r, const YAML::Node& node, Draft& draft) {
  MapReader m(r, node, "metadata", {"name", "labels", "annotations"});
  if (!m.valid()) return;
  if (m.has("labels")) r.stringMap(m.get("labels"), m.path("labels"));
  if (m.has("annotations")) r.stringMap(m.get("annotations"), m.path("annotations"));
  if (!m.require("name")) return;
  auto name = r.name(m.get("name"), m.path("name"));
  if (name && !draft.haveName) {
    draft.set.name = *name;
    draft.haveName = true;
  }
}

void parseExempt(YamlReader& r, const YAML::Node& node, const std::string& path, Draft& draft) {
  MapReader m(r, node, path, {"namespaces", "images"});
  if (!m.valid()) return;
  if (m.has("images"))
    draft.set.exemptImages = parseImagePatterns(r, m.get("images"), m.path("images"));
  // Images alone are enough: exempt needs namespaces only when it names no images.
  if (!m.has("images") && !m.require("namespaces")) return;
  if (!m.has("namespaces")) return;
  if (auto sel = parseNamespaceSelector(r, m.get("namespaces"), m.path("namespaces"))) {
    draft.set.exemptNamespaces = {std::move(sel->names), std::move(sel->labels)};
    draft.set.hasExemptions = true;
  }
}

void parseUnclassified(YamlReader& r, const YAML::Node& node, const std::string& path,
                       Draft& draft) {
  auto value = r.name(node, path);
  if (!value) return;
  auto& u = draft.set.unclassifiedGpuPods;
  if (*value == "deny") {
    u.action = UnclassifiedGpuPods::Action::Deny;
  } else if (*value == "allow") {
    u.action = UnclassifiedGpuPods::Action::Allow;
  } else {  // a class name, checked once every class is known
    u.action = UnclassifiedGpuPods::Action::AssignClass;
    u.className = *value;
    draft.unclassifiedGpuPods = r.loc(node, path);
  }
}

void parsePriorityClasses(YamlReader& r, const YAML::Node& node, const std::string& path,
                          Draft& draft) {
  MapReader m(r, node, path, {"globalDefault"});
  if (!m.valid() || !m.require("globalDefault")) return;
  if (auto name = r.name(m.get("globalDefault"), m.path("globalDefault")))
    draft.set.globalDefaultPriorityClass = *name;
}

// The kinds, as written; resolveMutatedTemplates checks them once every template kind is known.
void parseMutateTemplates(YamlReader& r, const YAML::Node& node, const std::string& path,
                          Draft& draft) {
  if (!r.expectList(node, path)) return;
  for (std::size_t i = 0; i < node.size(); ++i) {
    const std::string p = indexPath(path, i);
    if (auto name = r.name(node[i], p))
      draft.mutateTemplates.emplace_back(*name, r.loc(node[i], p));
  }
}

void parseSpec(YamlReader& r, const YAML::Node& node, Draft& draft) {
  MapReader spec(r, node, "spec", {"exempt",
                                   "pools",
                                   "classes",
                                   "unclassifiedGpuPods",
                                   "skip",
                                   "quotas",
                                   "rollout",
                                   "templates",
                                   "priorityClasses",
                                   "quotaUnavailable",
                                   "cpuPools",
                                   "fieldGuards",
                                   "priorityTiers",
                                   "capacityCheck",
                                   "effects",
                                   "ruleExemptions",
                                   "namespaceRules",
                                   "containers",
                                   "mutateTemplates",
                                   "dra"});
  if (!spec.valid()) return;
  if (spec.has("exempt") && claimSetting(r, draft, spec, "exempt"))
    parseExempt(r, spec.get("exempt"), spec.path("exempt"), draft);
  if (spec.has("pools")) parsePools(r, spec.get("pools"), spec.path("pools"), draft);
  if (spec.has("classes")) parseClasses(r, spec.get("classes"), spec.path("classes"), draft);
  if (spec.has("unclassifiedGpuPods") && claimSetting(r, draft, spec, "unclassifiedGpuPods"))
    parseUnclassified(r, spec.get("unclassifiedGpuPods"), spec.path("unclassifiedGpuPods"), draft);
  if (spec.has("skip")) parseSkipRules(r, spec.get("skip"), spec.path("skip"), draft);
  if (spec.has("quotas")) parseQuotas(r, spec.get("quotas"), spec.path("quotas"), draft);
  if (spec.has("rollout")) parseRollout(r, spec.get("rollout"), spec.path("rollout"), draft);
  if (spec.has("templates"))
    parseTemplates(r, spec.get("templates"), spec.path("templates"), draft);
  if (spec.has("priorityClasses") && claimSetting(r, draft, spec, "priorityClasses"))
    parsePriorityClasses(r, spec.get("priorityClasses"), spec.path("priorityClasses"), draft);
  if (spec.has("effects") && claimSetting(r, draft, spec, "effects"))
    parseDefaultEffects(r, spec.get("effects"), spec.path("effects"), draft);
  if (spec.has("containers") && claimSetting(r, draft, spec, "containers"))
    parseDefaultContainers(r, spec.get("containers"), spec.path("containers"), draft);
  if (spec.has("ruleExemptions"))
    parseRuleExemptions(r, spec.get("ruleExemptions"), spec.path("ruleExemptions"), draft);
  if (spec.has("namespaceRules"))
    parseNamespaceRules(r, spec.get("namespaceRules"), spec.path("namespaceRules"), draft);
  if (spec.has("quotaUnavailable") && claimSetting(r, draft, spec, "quotaUnavailable")) {
    auto mode = r.enumeration<QuotaUnavailable>(
        spec.get("quotaUnavailable"), spec.path("quotaUnavailable"),
        {{"failOpen", QuotaUnavailable::FailOpen}, {"failClosed", QuotaUnavailable::FailClosed}});
    if (mode) draft.set.quotaUnavailable = *mode;
  }
  if (spec.has("cpuPools")) parseCpuPools(r, spec.get("cpuPools"), spec.path("cpuPools"), draft);
  if (spec.has("fieldGuards") && claimSetting(r, draft, spec, "fieldGuards"))
    parseFieldGuards(r, spec.get("fieldGuards"), spec.path("fieldGuards"), draft);
  if (spec.has("priorityTiers"))
    parsePriorityTiers(r, spec.get("priorityTiers"), spec.path("priorityTiers"), draft);
  if (spec.has("mutateTemplates") && claimSetting(r, draft, spec, "mutateTemplates"))
    parseMutateTemplates(r, spec.get("mutateTemplates"), spec.path("mutateTemplates"), draft);
  if (spec.has("dra") && claimSetting(r, draft, spec, "dra"))
    parseDra(r, spec.get("dra"), spec.path("dra"), draft);
  if (spec.has("capacityCheck") && claimSetting(r, draft, spec, "capacityCheck"))
    if (auto check = parseCapacityCheck(r, spec.get("capacityCheck"), spec.path("capacityCheck")))
      draft.set.capacityCheck = *check;
}

void expectConstant(YamlReader& r, const MapReader& doc, const char* key, const char* want) {
  if (!doc.require(key)) return;
  auto value = r.string(doc.get(key), doc.path(key));
  if (value && *value != want)
    r.error(doc.get(key), doc.path(key), "unsupported " + std::string(key) + " '" + *value + "'",
            std::string("use ") + key + ": " + want);
}

}  // namespace

void parseDocument(YamlReader& r, const YAML::Node& node, Draft& draft) {
  MapReader doc(r, node, "", {"apiVersion", "kind", "metadata", "spec"});
  if (!doc.valid()) return;
  expectConstant(r, doc, "apiVersion", kApiVersion);
  expectConstant(r, doc, "kind", kKind);
  if (doc.require("metadata")) parseMetadata(r, doc.get("metadata"), draft);
  if (doc.require("spec")) parseSpec(r, doc.get("spec"), draft);
}

}  // namespace gpua::policy
