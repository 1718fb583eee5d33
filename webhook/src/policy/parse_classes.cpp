// spec.classes (workload classes, first match wins) and spec.skip (pods other systems own).
#include "policy/gpu_models.hpp"
#include "policy/parse.hpp"

namespace gpua::policy {

namespace {

void parseRuleList(YamlReader& r, const MapReader& m, const char* key,
                   std::vector<MatchRule>& out) {
  const YAML::Node list = m.get(key);
  if (!r.expectList(list, m.path(key))) return;
  for (std::size_t i = 0; i < list.size(); ++i)
    if (auto rule = parseMatchRule(r, list[i], indexPath(m.path(key), i))) out.push_back(*rule);
}

Matcher parseMatcher(YamlReader& r, const YAML::Node& node, const std::string& path) {
  const std::size_t errorsBefore = r.diagnostics().size();
  Matcher matcher;
  MapReader m(r, node, path, {"any", "all"});
  if (!m.valid()) return matcher;
  if (m.has("any")) parseRuleList(r, m, "any", matcher.any);
  if (m.has("all")) parseRuleList(r, m, "all", matcher.all);
  if (matcher.any.empty() && matcher.all.empty() && r.diagnostics().size() == errorsBefore)
    r.error(node, path, "empty matcher: a class must match something",
            "add rules under match.any (one must hold) or match.all (all must hold)");
  return matcher;
}

void parseGpus(YamlReader& r, const MapReader& m, WorkloadClass& c, ClassOrigin& origin) {
  if (m.has("request")) {
    origin.requestExplicit = true;
    origin.request = m.loc("request");
    auto request = r.enumeration<GpuRequest>(m.get("request"), m.path("request"),
                                             {{"required", GpuRequest::Required},
                                              {"optional", GpuRequest::Optional},
                                              {"forbidden", GpuRequest::Forbidden}});
    if (request) c.gpus.request = *request;
  }
  if (m.has("maxPerPod")) c.gpus.maxPerPod = r.integer(m.get("maxPerPod"), m.path("maxPerPod"), 1);
  if (m.has("maxPerContainer"))
    c.gpus.maxPerContainer = r.integer(m.get("maxPerContainer"), m.path("maxPerContainer"), 1);
  if (m.has("migProfile")) {
    origin.migProfile = m.loc("migProfile");
    auto profile = r.name(m.get("migProfile"), m.path("migProfile"));
    if (profile && !migProfileSlices(*profile))
      r.error(m.get("migProfile"), m.path("migProfile"), "malformed MIG profile '" + *profile + "'",
              "MIG profiles look like <slices>g.<memory>gb, e.g. 2g.20gb");
    else if (profile)
      c.gpus.migProfile = *profile;
  }
  if (m.has("deviceClasses")) {
    const YAML::Node list = m.get("deviceClasses");
    c.gpus.deviceClasses = r.stringList(list, m.path("deviceClasses"));
    if (list.IsSequence())
      for (std::size_t i = 0; i < list.size(); ++i)
        origin.deviceClasses.push_back(r.loc(list[i], indexPath(m.path("deviceClasses"), i)));
  }
}

// effects, allowedRuntimeClasses, requirePriorityClass and requiredLabels (require instead of
// fix).
void parseClassRequirements(YamlReader& r, const MapReader& m, WorkloadClass& c,
                            ClassOrigin& origin) {
  if (m.has("effects")) origin.effects = parseEffects(r, m.get("effects"), m.path("effects"));
  if (m.has("allowedRuntimeClasses"))
    c.allowedRuntimeClasses =
        r.stringList(m.get("allowedRuntimeClasses"), m.path("allowedRuntimeClasses"));
  if (m.has("requirePriorityClass"))
    c.requirePriorityClass =
        r.boolean(m.get("requirePriorityClass"), m.path("requirePriorityClass")).value_or(false);
  if (m.has("requiredLabels"))
    c.requiredLabels = parseRequiredLabels(r, m.get("requiredLabels"), m.path("requiredLabels"));
  if (m.has("appliesTo")) {
    origin.appliesTo = parseRuleScope(r, m.get("appliesTo"), m.path("appliesTo"));
    if (origin.appliesTo == RuleScope::AllPods) {
      refuseAllPodsInAClass(r, m.get("appliesTo"), m.path("appliesTo"));
      origin.appliesTo.reset();
    }
    if (origin.appliesTo) c.appliesTo = *origin.appliesTo;
  }
  // Demanding the class's priority class means nothing when the class names none. Only an
  // explicit `priorityClass: require` is an error: `effects: require` means "what there is".
  const YAML::Node effects = m.get("effects");
  if (effects.IsMap() && effects["priorityClass"] &&
      origin.effects.priorityClass == EffectMode::Require && !m.has("priorityClassName"))
    r.error(m.get("effects"), m.path("effects") + ".priorityClass",
            "priorityClass: require needs priorityClassName",
            "set priorityClassName, or use requirePriorityClass: true to demand any allowed class");
}

// Rules that only need the class itself. Reference and pool-compatibility checks come later.
void checkClass(YamlReader& r, const MapReader& m, const WorkloadClass& c,
                const ClassOrigin& origin) {
  const bool forbidden = c.gpus.request == GpuRequest::Forbidden;
  const YAML::Node at = origin.requestExplicit ? m.get("gpus")["request"] : m.node();
  const std::string requestPath = m.path("gpus") + ".request";
  if (forbidden && !c.pools.empty())
    r.error(at, requestPath, "a class that forbids GPUs cannot have GPU pools",
            "remove pools, or set gpus.request to required or optional");
  if (!forbidden && c.pools.empty())
    r.error(at, requestPath, "a class that takes GPUs needs pools",
            "list the pools its pods run on, or set gpus.request: forbidden");
  if (forbidden && c.appliesTo == RuleScope::GpuPods)
    refuseGpuPodScopeWithoutGpus(r, m.get("appliesTo"), m.path("appliesTo"),
                                 ", or let the class take GPUs");
  if (forbidden && (c.gpus.maxPerPod || c.gpus.maxPerContainer || c.gpus.migProfile ||
                    !c.gpus.deviceClasses.empty()))
    r.error(m.get("gpus"), m.path("gpus"),
            "maxPerPod, maxPerContainer, migProfile and deviceClasses need GPUs, but gpus.request "
            "is forbidden");
  if (c.overridePriorityClass && !c.priorityClassName)
    r.error(m.get("overridePriorityClass"), m.path("overridePriorityClass"),
            "overridePriorityClass needs priorityClassName");
  if (c.priorityClassName && c.priorityClassName->starts_with("system-"))
    r.error(m.get("priorityClassName"), m.path("priorityClassName"),
            "priority classes starting with 'system-' are reserved for Kubernetes components");
}

void parseClass(YamlReader& r, const YAML::Node& node, const std::string& path, Draft& draft) {
  MapReader m(r, node, path,
              {"name",
               "match",
               "allowedNamespaces",
               "pools",
               "priorityClassName",
               "overridePriorityClass",
               "allowedPriorityClasses",
               "gpus",
               "maxRunSeconds",
               "cpuPools",
               "placement",
               "requireCheckpoint",
               "effects",
               "allowedRuntimeClasses",
               "requirePriorityClass",
               "capacityCheck",
               "maxShareOfNodePerGpu",
               "containers",
               "appliesTo",
               "requiredLabels"});
  if (!m.valid()) return;
  WorkloadClass c;
  ClassOrigin origin;
  origin.node = m.loc();
  origin.name = m.loc("name");
  auto name = m.require("name") ? r.name(m.get("name"), m.path("name")) : std::nullopt;
  if (m.require("match")) c.match = parseMatcher(r, m.get("match"), m.path("match"));
  if (m.has("allowedNamespaces"))
    c.allowedNamespaces =
        parseNamespaceSelector(r, m.get("allowedNamespaces"), m.path("allowedNamespaces"));
  if (m.has("pools") && r.expectList(m.get("pools"), m.path("pools"))) {
    const YAML::Node list = m.get("pools");
    for (std::size_t i = 0; i < list.size(); ++i) {
      const std::string p = indexPath(m.path("pools"), i);
      if (auto pool = r.name(list[i], p)) {
        c.pools.push_back(*pool);
        origin.pools.push_back(r.loc(list[i], p));
      }
    }
  }
  if (m.has("priorityClassName")) {
    origin.priorityClassName = m.loc("priorityClassName");
    c.priorityClassName = r.name(m.get("priorityClassName"), m.path("priorityClassName"));
  }
  if (m.has("overridePriorityClass"))
    c.overridePriorityClass =
        r.boolean(m.get("overridePriorityClass"), m.path("overridePriorityClass")).value_or(false);
  if (m.has("allowedPriorityClasses"))
    c.allowedPriorityClasses =
        r.stringList(m.get("allowedPriorityClasses"), m.path("allowedPriorityClasses"));
  // Default: a class with pools places GPU pods; a class without pools is for CPU pods.
  c.gpus.request = c.pools.empty() ? GpuRequest::Forbidden : GpuRequest::Required;
  if (m.has("gpus")) {
    MapReader gpus(r, m.get("gpus"), m.path("gpus"),
                   {"request", "maxPerPod", "maxPerContainer", "migProfile", "deviceClasses"});
    if (gpus.valid()) parseGpus(r, gpus, c, origin);
  }
  if (m.has("maxRunSeconds"))
    c.maxRunSeconds = r.integer(m.get("maxRunSeconds"), m.path("maxRunSeconds"), 1);
  parseClassWorkloadRules(r, m, c, origin);
  parseClassRequirements(r, m, c, origin);
  if (m.has("capacityCheck"))
    c.capacityCheck = parseCapacityCheck(r, m.get("capacityCheck"), m.path("capacityCheck"));
  if (m.has("maxShareOfNodePerGpu"))
    c.maxShareOfNodePerGpu =
        parseShareFactor(r, m.get("maxShareOfNodePerGpu"), m.path("maxShareOfNodePerGpu"));
  checkClass(r, m, c, origin);
  if (!name) return;
  c.name = *name;
  draft.set.classes.push_back(std::move(c));
  draft.classes.push_back(std::move(origin));
}

void parseSkipRule(YamlReader& r, const YAML::Node& node, const std::string& path, Draft& draft) {
  MapReader m(r, node, path, {"name", "match", "action"});
  if (!m.valid()) return;
  SkipRule rule;
  auto name = m.require("name") ? r.name(m.get("name"), m.path("name")) : std::nullopt;
  auto match =
      m.require("match") ? parseMatchRule(r, m.get("match"), m.path("match")) : std::nullopt;
  std::optional<SkipRule::Action> action = SkipRule::Action::Skip;
  if (m.has("action"))
    action = r.enumeration<SkipRule::Action>(
        m.get("action"), m.path("action"),
        {{"skip", SkipRule::Action::Skip}, {"validateOnly", SkipRule::Action::ValidateOnly}});
  if (!name || !match || !action) return;
  rule.name = *name;
  rule.match = *match;
  rule.action = *action;
  draft.set.skip.push_back(std::move(rule));
  draft.skip.push_back(m.loc("name"));
}

}  // namespace

void parseClasses(YamlReader& r, const YAML::Node& node, const std::string& path, Draft& draft) {
  if (!r.expectList(node, path)) return;
  for (std::size_t i = 0; i < node.size(); ++i) parseClass(r, node[i], indexPath(path, i), draft);
}

void parseSkipRules(YamlReader& r, const YAML::Node& node, const std::string& path, Draft& draft) {
  if (!r.expectList(node, path)) return;
  for (std::size_t i = 0; i < node.size(); ++i)
    parseSkipRule(r, node[i], indexPath(path, i), draft);
}

}  // namespace gpua::policy
