#include "native/pod_cel.hpp"

#include <set>

#include "engine/classify/class_hints.hpp"
#include "engine/pod/gpu_request.hpp"
#include "native/cel_text.hpp"
#include "native/placement_conflict_cel.hpp"

namespace gpua::native {

namespace {

using cel::str;

constexpr std::size_t kNameCut = 80;  // engine::text::quoted

std::string gpuResourceList(const policy::PolicySet& policy) {
  std::set<std::string> extra;
  for (const auto& pool : policy.pools)
    if (pool.resource != engine::kWholeGpu && !pool.resource.starts_with(engine::kMigPrefix))
      extra.insert(pool.resource);
  return cel::strList({extra.begin(), extra.end()});
}

// Every container or init container requests/limits key matching `pattern` (a trailing '*' is
// a prefix) with a non-zero quantity: engine/classify/classify's resource rule.
std::string resourceRule(const std::vector<std::string>& patterns) {
  std::vector<std::string> tests;
  for (const auto& p : patterns)
    tests.push_back(p.ends_with('*') ? "k.startsWith(" + str(p.substr(0, p.size() - 1)) + ")"
                                     : "k == " + str(p));
  const std::string key = cel::anyOf(tests);
  auto inMap = [&](const std::string& field) {
    return "(has(c.resources." + field + ") && c.resources." + field + ".exists(k, " + key +
           " && quantity(c.resources." + field + "[k]).isGreaterThan(quantity(\"0\"))))";
  };
  return "(variables.ctrs + variables.inits).exists(c, has(c.resources) && (" + inMap("requests") +
         " || " + inMap("limits") + "))";
}

std::string pairs(const std::map<std::string, std::string>& wanted, const std::string& map) {
  std::vector<std::string> parts;
  for (const auto& [k, v] : wanted)
    parts.push_back("(" + str(k) + " in " + map + " && " + map + "[" + str(k) + "] == " + str(v) +
                    ")");
  return parts.empty() ? "" : cel::allOf(parts);
}

std::string keys(const std::vector<std::string>& wanted, const std::string& map) {
  std::vector<std::string> parts;
  for (const auto& k : wanted) parts.push_back("(" + str(k) + " in " + map + ")");
  return parts.empty() ? "" : cel::allOf(parts);
}

// matchRule() of engine/classify/classify.cpp.
std::string matchRule(const policy::MatchRule& r, std::string_view where) {
  if (!r.images.empty())
    throw NotCompilable(std::string(where) +
                        " matches container images, which the compiler cannot write in CEL yet");
  // Which device class a claim names is read from the ResourceClaim or its template.
  if (!r.deviceClasses.empty())
    throw NotCompilable(std::string(where) +
                        " matches DRA device classes, which are read from the pod's "
                        "ResourceClaims and ResourceClaimTemplates (other objects)");
  std::vector<std::string> parts{pairs(r.labels, "variables.labels"),
                                 keys(r.labelKeys, "variables.labels"),
                                 pairs(r.annotations, "variables.annotations"),
                                 keys(r.annotationKeys, "variables.annotations")};
  if (r.namespaces) parts.push_back(cel::namespaceSelector(*r.namespaces));
  if (!r.ownerKinds.empty())
    parts.push_back(
        "(has(object.metadata.ownerReferences) && "
        "object.metadata.ownerReferences.exists(o, o.kind in " +
        cel::strList(r.ownerKinds) + "))");
  if (!r.schedulerNames.empty())
    parts.push_back("(variables.scheduler in " + cel::strList(r.schedulerNames) + ")");
  if (!r.resources.empty()) parts.push_back(resourceRule(r.resources));
  return cel::allOf(parts);
}

std::string joinWords(const std::vector<std::string>& items, std::string_view sep) {
  std::string out;
  for (std::size_t i = 0; i < items.size(); ++i) out += (i ? std::string(sep) : "") + items[i];
  return out;
}

// describeRule() of engine/classify/classify.cpp, as a CEL string expression.
std::string describeRule(const policy::MatchRule& r) {
  std::vector<std::string> parts;
  for (const auto& [k, v] : r.labels) parts.push_back(str("label " + k + "=" + v));
  for (const auto& k : r.labelKeys) parts.push_back(str("label " + k));
  for (const auto& [k, v] : r.annotations) parts.push_back(str("annotation " + k + "=" + v));
  for (const auto& k : r.annotationKeys) parts.push_back(str("annotation " + k));
  if (r.namespaces) parts.push_back("\"namespace \" + variables.nsName");
  if (!r.ownerKinds.empty()) parts.push_back(str("owner kind " + joinWords(r.ownerKinds, " or ")));
  if (!r.schedulerNames.empty()) parts.push_back("\"scheduler \" + variables.scheduler");
  if (!r.resources.empty()) parts.push_back(str("resource " + joinWords(r.resources, " or ")));
  return joinWords(parts, " + \" and \" + ");
}

// matcherHolds(): any rule of `any` (or none listed) and every rule of `all`.
std::string matcher(const policy::WorkloadClass& cls) {
  std::vector<std::string> any;
  for (std::size_t i = 0; i < cls.match.any.size(); ++i)
    any.push_back(
        matchRule(cls.match.any[i], "class " + cls.name + " match rule " + std::to_string(i + 1)));
  std::vector<std::string> all;
  for (const auto& r : cls.match.all) all.push_back(matchRule(r, "class " + cls.name + " all-of"));
  all.insert(all.begin(), cel::anyOf(any));
  if (cls.match.any.empty()) all.front() = "";
  return cel::allOf(all);
}

// The matched rule in words: the first `any` rule that holds, then every `all` rule.
std::string matchedText(const policy::WorkloadClass& cls) {
  std::string any;
  if (!cls.match.any.empty()) {
    any = "\"\"";
    for (std::size_t i = cls.match.any.size(); i-- > 0;)
      any = "(" + matchRule(cls.match.any[i], "") + " ? " + describeRule(cls.match.any[i]) + " : " +
            any + ")";
  }
  std::vector<std::string> parts;
  if (!any.empty()) parts.push_back(any);
  for (const auto& r : cls.match.all) parts.push_back(describeRule(r));
  return joinWords(parts, " + \" and \" + ");
}

std::string classVariable(const policy::PolicySet& policy, bool names) {
  using Action = policy::UnclassifiedGpuPods::Action;
  const auto& u = policy.unclassifiedGpuPods;
  // unclassifiedGpuPods: <class> takes a GPU pod no class matched (and no rule selected it).
  std::string out = u.action == Action::AssignClass
                        ? "(variables.hasGpu ? " + (names ? str(u.className) : str("")) + " : \"\")"
                        : "\"\"";
  for (std::size_t i = policy.classes.size(); i-- > 0;)
    out = "(variables.class" + std::to_string(i) + " ? " +
          (names ? str(policy.classes[i].name) : matchedText(policy.classes[i])) + " : " + out +
          ")";
  return out;
}

std::string rolloutMode(const policy::PolicySet& policy) {
  std::string out = str("enforce");  // no rule matches: enforce (engine/verdict)
  for (std::size_t i = policy.rollout.size(); i-- > 0;) {
    const auto& r = policy.rollout[i];
    const std::string test = r.namespaces ? cel::namespaceSelector(*r.namespaces) : "true";
    out = "(" + test + " ? " + str(policy::modeName(r.mode)) + " : " + out + ")";
  }
  return out;
}

std::string skipVariable(const policy::PolicySet& policy) {
  std::string out = "\"\"";
  for (std::size_t i = policy.skip.size(); i-- > 0;) {
    const auto& s = policy.skip[i];
    if (s.match.empty()) continue;
    const char* action = s.action == policy::SkipRule::Action::Skip ? "skip" : "validateOnly";
    out = "(" + matchRule(s.match, "skip rule " + s.name) + " ? " + str(action) + " : " + out + ")";
  }
  return out;
}

// engine/pod/pod_view's subject: the name, else the generateName, quoted and cut. Validating
// admission runs after the storage layer generated the name, as the webhook's validating call
// does, so a generateName pod is named by its generated name in both.
std::string subject() {
  const std::string gen = "object.metadata.generateName";
  const std::string name = "object.metadata.name";
  return "(has(" + name + ") && " + name + " != \"\" ? \"pod \\\"\" + " + cel::cut(name, kNameCut) +
         " + \"\\\"\" : (has(" + gen + ") && " + gen + " != \"\" ? \"pod \\\"\" + " +
         cel::cut(gen, kNameCut) + " + \"\\\" (generateName)\" : \"pod (no name)\"))";
}

}  // namespace

std::string ContainerCel::isGpu(const std::string& key) const {
  return "(" + key + " == " + str(engine::kWholeGpu) + " || " + key + ".startsWith(" +
         str(engine::kMigPrefix) + ") || " + key + " in " + gpuResourceList(policy) + ")";
}

std::string ContainerCel::limits(const std::string& c) const {
  return "(has(" + c + ".resources) && has(" + c + ".resources.limits) ? " + c +
         ".resources.limits : {})";
}

std::string ContainerCel::unitsOf(const std::string& c, const std::string& key) const {
  return "quantity(" + limits(c) + "[" + key + "]).asInteger()";
}

std::string ContainerCel::units(const std::string& c) const {
  return "cel.bind(lim, " + limits(c) + ", lim.filter(k, " + isGpu("k") +
         ").map(k, quantity(lim[k]).asInteger()).sum())";
}

std::string ContainerCel::gpuKeys(const std::string& c) const {
  return "cel.bind(lim, " + limits(c) + ", lim.filter(k, " + isGpu("k") +
         " && quantity(lim[k]).asInteger() > 0))";
}

// A GPU request without a limit reaches mutating admission (the apiserver refuses it only after,
// unless the webhook or the compiled mutation sets the limit), so the requests count too.
std::string ContainerCel::wantsGpu(const std::string& c) const {
  const std::string req = "(has(" + c + ".resources) && has(" + c + ".resources.requests) ? " + c +
                          ".resources.requests : {})";
  return "(" + units(c) + " > 0 || cel.bind(req, " + req + ", req.exists(k, " + isGpu("k") +
         " && quantity(req[k]).isGreaterThan(quantity(\"0\")))) || (has(" + c +
         ".resources) && has(" + c + ".resources.claims) && size(" + c + ".resources.claims) > 0))";
}

std::string ContainerCel::label(const std::string& c, bool init) const {
  return str(init ? "init container \"" : "container \"") + " + " +
         cel::cut(c + ".name", kNameCut) + " + \"\\\"\"";
}

std::string ContainerCel::resourceWord(const std::string& c) const {
  return "cel.bind(ks, " + gpuKeys(c) + ", size(ks) == 1 ? ks[0] : \"GPUs\")";
}

std::string requiredTerms() {
  const std::string a = "object.spec.affinity";
  const std::string req = a + ".nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution";
  return "(has(" + a + ") && has(" + a + ".nodeAffinity) && has(" + req + ") && has(" + req +
         ".nodeSelectorTerms) ? " + req + ".nodeSelectorTerms : [])";
}

std::string nodeSelector() {
  return "(has(object.spec.nodeSelector) ? object.spec.nodeSelector : {})";
}

std::string classLabelHint(const policy::PolicySet& policy, const policy::WorkloadClass* before,
                           const std::function<std::string(const policy::WorkloadClass&)>& accept) {
  std::vector<std::string> items;
  for (const auto& c : policy.classes) {
    if (&c == before) break;
    if (c.gpus.request == policy::GpuRequest::Forbidden) continue;
    const std::string label = engine::classLabel(c);
    if (label.empty()) continue;
    const std::string usable =
        c.allowedNamespaces ? cel::namespaceSelector(*c.allowedNamespaces) : "";
    const std::string test = cel::allOf({usable, accept(c) == "true" ? "" : accept(c)});
    items.push_back(test == "true" ? str(label) : "(" + test + " ? " + str(label) + " : \"\")");
  }
  if (items.empty()) return "\"\"";
  // gpuClassLabels(): "k=<v1|v2>" when every label is k=v on one key, else joined with " or ".
  const std::string key = "hs[0].split(\"=\")[0]";
  return "cel.bind(hs, [" + joinWords(items, ", ") +
         "].filter(h, h != \"\"), size(hs) == 0 ? \"\" : (size(hs) == 1 || !hs.all(h, "
         "!h.contains(\",\") && h.startsWith(" +
         key + " + \"=\"))) ? hs.join(\" or \") : " + key +
         " + \"=<\" + hs.map(h, h.substring(size(" + key + ") + 1)).join(\"|\") + \">\")";
}

std::vector<CelVariable> podVariables(const policy::PolicySet& policy) {
  const ContainerCel cc{policy};
  std::vector<CelVariable> v{
      {"nsName", "request.namespace"},
      {"nsLabels", "has(namespaceObject.metadata.labels) ? namespaceObject.metadata.labels : {}"},
      {"labels", "has(object.metadata.labels) ? object.metadata.labels : {}"},
      {"annotations", "has(object.metadata.annotations) ? object.metadata.annotations : {}"},
      {"scheduler",
       "has(object.spec.schedulerName) && object.spec.schedulerName != \"\" ? "
       "object.spec.schedulerName : \"default-scheduler\""},
      {"ctrs", "object.spec.containers"},
      {"inits", "has(object.spec.initContainers) ? object.spec.initContainers : []"},
      {"hasGpu", "(variables.ctrs + variables.inits).exists(c, " + cc.wantsGpu("c") +
                     ") || (has(object.spec.resourceClaims) && "
                     "size(object.spec.resourceClaims) > 0)"},
      {"requestsMig", "(variables.ctrs + variables.inits).exists(c, " + cc.gpuKeys("c") +
                          ".exists(k, k.startsWith(" + str(engine::kMigPrefix) + ")))"},
      // engine/pod effectiveUnits(), summed: the app containers' sum, or the largest init
      // container when larger (exact for one GPU resource per pod).
      {"total", "cel.bind(a, variables.ctrs.map(c, " + cc.units("c") +
                    ").sum(), cel.bind(i, variables.inits.map(c, " + cc.units("c") +
                    "), i.exists(u, u > a) ? i.filter(u, i.all(w, u >= w))[0] : a))"},
      {"subject", subject()},
      {"exempt", policy.exemptNamespaces.empty()
                     ? "false"
                     : cel::namespaceExemption(policy.exemptNamespaces)},
      {"skip", skipVariable(policy)},
      {"mode", rolloutMode(policy)},
  };
  for (std::size_t i = 0; i < policy.classes.size(); ++i)
    v.push_back({"class" + std::to_string(i), matcher(policy.classes[i])});
  v.push_back({"cls", classVariable(policy, true)});
  v.push_back({"matched", classVariable(policy, false)});
  for (auto& pv : placementVariables(policy)) v.push_back(std::move(pv));
  return v;
}

}  // namespace gpua::native
