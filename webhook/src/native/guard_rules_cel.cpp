#include "native/guard_rules_cel.hpp"

#include <algorithm>
#include <functional>

#include "engine/classify/class_placement.hpp"
#include "engine/core/text.hpp"
#include "engine/core/toleration.hpp"
#include "engine/validate/field_guards.hpp"
#include "engine/validate/validate.hpp"
#include "native/cel_text.hpp"
#include "native/pod_cel.hpp"
#include "policy/rule_ids.hpp"

namespace gpua::native {

namespace rules = policy::rules;
using cel::str;
using Pools = engine::PoolList;

namespace {

// engine::text::quoted cuts at 80 bytes: the same cut for the ASCII names, label values and
// keys Kubernetes allows.
constexpr std::size_t kQuotedCut = 80;
// The most spec.nodeSelector keys node-selector-forbidden lists in the apiserver's order.
constexpr std::size_t kSortedKeys = 32;

// `cond ? [msg] : []`
std::string one(const std::string& cond, const std::string& msg) {
  return "(" + cond + " ? [" + msg + "] : [])";
}

// `cond ? list : []`, "" when there is no list or the condition never holds.
std::string gated(const std::string& cond, const std::string& list) {
  if (list.empty() || cond == "false") return "";
  return cond == "true" ? list : "(" + cond + " ? " + list + " : [])";
}

// engine::text::quoted of the CEL string `expr`, cut at `max`.
std::string quoted(const std::string& expr, std::size_t max = kQuotedCut) {
  return "\"\\\"\" + " + cel::cut(expr, max) + " + \"\\\"\"";
}

std::string joined(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& i : items) out.append(out.empty() ? "" : ", ").append(i);
  return out;
}

// The pod's own spec.<field> string, "" when unset (engine PodView::specString).
std::string specString(const std::string& field) {
  return "(has(object.spec." + field + ") ? object.spec." + field + " : \"\")";
}

// `namespace "<name>"`, as the namespace rules' messages name it.
std::string namespaceWho() {
  return "\"namespace \" + " + quoted("variables.nsName");
}

// engine::getsClassPlacement for the pods of `cls`.
std::string placed(const policy::WorkloadClass& cls) {
  return engine::placesCpuPods(cls) ? "true" : "variables.hasGpu";
}

// engine::inRuleScope for the pods of `cls` (the allPods pseudo-class: scope allPods only).
std::string inScope(policy::RuleScope scope, const policy::WorkloadClass& cls) {
  if (engine::isAllPodsRules(cls)) return scope == policy::RuleScope::AllPods ? "true" : "false";
  switch (scope) {
    case policy::RuleScope::GpuPods:
      return "variables.hasGpu";
    case policy::RuleScope::PlacedPods:
      return placed(cls);
    case policy::RuleScope::ClassPods:
    case policy::RuleScope::AllPods:
      return "true";
  }
  return "true";
}

// The pools whose placement the class writes or requires for its GPU pods, and for its pods
// without GPUs (its CPU pools when it places them, else none): engine/decide's guardPlacement.
Pools gpuSide(const policy::PolicySet& p, const policy::WorkloadClass& cls) {
  return engine::gpuPoolsOf(cls, p);
}
Pools cpuSide(const policy::PolicySet& p, const policy::WorkloadClass& cls) {
  return engine::placesCpuPods(cls) ? engine::cpuPoolsOf(cls, p) : Pools{};
}

// `variables.hasGpu ? gpu : cpu`, written once when both sides are the same.
std::string byGpu(const std::string& gpu, const std::string& cpu) {
  return gpu == cpu ? gpu : "(variables.hasGpu ? " + gpu + " : " + cpu + ")";
}

// `data(pools)` for the pools of the pod's class (variables.cls) on its side: a CEL value chosen
// by class, `data({})` for a pod no class takes.
std::string byClassPools(const policy::PolicySet& p,
                         const std::function<std::string(const Pools&)>& data) {
  const std::string none = data({});
  std::string out = none;
  for (std::size_t i = p.classes.size(); i-- > 0;) {
    const auto& cls = p.classes[i];
    const std::string side = byGpu(data(gpuSide(p, cls)), data(cpuSide(p, cls)));
    if (side == none) continue;
    out = "(variables.cls == " + str(cls.name) + " ? " + side + " : " + out + ")";
  }
  return out;
}

// ---- checkPlacementGuards(): engine/validate/field_guards.cpp ----

// node-name-forbidden.
std::string nodeNameGuard(const policy::PolicySet& p) {
  if (!p.fieldGuards.forbidNodeName) return "";
  const std::string node = "object.spec.nodeName";
  return one("has(" + node + ") && " + node + " != \"\"",
             std::string(kSubject) + " + \" sets spec.nodeName \" + " + quoted(node) + " + " +
                 str(engine::forbiddenByFieldGuard(p, "forbidNodeName") +
                     "remove spec.nodeName and let the scheduler place the pod"));
}

// node-selector-forbidden: authorsNodeSelector(), the keys no pool of the class sets to the
// same value, in the order of the apiserver's JSON (keys sorted; CEL iterates a map unordered).
std::string nodeSelectorGuard(const policy::PolicySet& p) {
  if (!p.fieldGuards.forbidNodeSelector) return "";
  const std::string own = byClassPools(p, [](const Pools& pools) {
    std::vector<std::string> pairs;
    for (const auto* pool : pools)
      for (const auto& [k, v] : pool->nodeSelector) pairs.push_back(cel::strList({k, v}));
    return "[" + joined(pairs) + "]";
  });
  const std::string keys = "cel.bind(own, " + own + ", ns.filter(k, !([k, ns[k]] in own)))";
  return "cel.bind(ns, " + nodeSelector() + ", cel.bind(ks, " +
         cel::sortedStrings(keys, kSortedKeys) + ", size(ks) == 0 ? [] : [" + kSubject +
         " + \" selects nodes by spec.nodeSelector (\" + ks.map(k, " + cel::cut("k", kQuotedCut) +
         ").join(\", \") + " +
         str(")" + engine::forbiddenByFieldGuard(p, "forbidNodeSelector") + "remove ") +
         " + (size(ks) == 1 ? \"that key\" : \"those keys\") + " +
         str("; the policy places pods by class") + "]))";
}

// node-affinity-forbidden: authorsNodeAffinity(), a preferred term, or the first required
// term's matchFields (but a DaemonSet's) or expression that is not one of the class's pools'
// requirements exactly.
std::string nodeAffinityGuard(const policy::PolicySet& p) {
  if (!p.fieldGuards.forbidNodeAffinity) return "";
  const std::string own = byClassPools(p, [](const Pools& pools) {
    std::vector<std::string> reqs;
    for (const auto* pool : pools)
      pool->forEachRequirement([&](const policy::NodeRequirementRef& r) {
        std::vector<std::string> items{std::string(r.key), policy::nodeOperatorName(r.op)};
        items.insert(items.end(), r.values.begin(), r.values.end());
        reqs.push_back(cel::strList(items));
      });
    return "[" + joined(reqs) + "]";
  });
  const std::string expression =
      "(([e.key, e.operator] + (has(e.values) ? e.values : [])) in own"
      " ? \"\" : " +
      cel::cut("e.key", 80) + " + \" \" + " + cel::cut("e.operator", 20) + ")";
  const std::string term =
      "(has(t.matchFields) && size(t.matchFields) > 0 && !ds ? \"matchFields\" : "
      "has(t.matchExpressions) ? " +
      cel::firstNonEmpty("t.matchExpressions.map(e, " + expression + ")") + " : \"\")";
  const std::string daemonSet =
      "(has(object.metadata.ownerReferences) && "
      "object.metadata.ownerReferences.exists(o, o.kind == \"DaemonSet\"))";
  const std::string na = "object.spec.affinity.nodeAffinity";
  const std::string preferred = na + ".preferredDuringSchedulingIgnoredDuringExecution";
  const std::string what =
      "(has(object.spec.affinity) && has(" + na + ") ? (has(" + preferred + ") && size(" +
      preferred + ") > 0 ? \"a preferred term\" : cel.bind(ds, " + daemonSet + ", cel.bind(own, " +
      own + ", " + cel::firstNonEmpty(requiredTerms() + ".map(t, " + term + ")") + "))) : \"\")";
  return "cel.bind(w, " + what + ", w == \"\" ? [] : [" + kSubject +
         " + \" sets node affinity (\" + w + " +
         str(") in spec.affinity.nodeAffinity" +
             engine::forbiddenByFieldGuard(p, "forbidNodeAffinity") +
             "remove it; the policy places pods by class") +
         "])";
}

// toleration-forbidden: checkTolerations(), the first toleration of a forbidden taint key (or of
// every taint) that is not the class's own toleration of one of its pools' taints.
std::string tolerationGuard(const policy::PolicySet& p) {
  const auto& keys = p.fieldGuards.forbidTolerations;
  if (keys.empty()) return "";
  const std::string own = byClassPools(p, [](const Pools& pools) {
    std::vector<std::string> tols;
    for (const auto* pool : pools)
      for (const auto& taint : pool->taints) {
        const engine::TolerationView t = engine::tolerationFor(taint);
        tols.push_back(cel::strList(
            {std::string(t.key), std::string(t.op), std::string(t.value), std::string(t.effect)}));
      }
    return "[" + joined(tols) + "]";
  });
  // The toleration's key, operator, value and effect, "" when unset.
  const std::string fields =
      "[has(t.key) ? t.key : \"\", has(t.operator) ? t.operator : \"\", has(t.value) ? t.value : "
      "\"\", has(t.effect) ? t.effect : \"\"]";
  const std::string everything = "(v[0] == \"\" && v[1] == \"Exists\")";
  const std::string offends = "cel.bind(v, " + fields + ", (" + everything + " || v[0] in " +
                              cel::strList(keys) +
                              ") && !([v[0], v[1] == \"\" ? \"Equal\" : v[1], v[2], v[3]] in own))";
  // Its index: the first toleration equal to the first offending one is that one.
  const std::string msg =
      "cel.bind(t, bad[0], cel.bind(v, " + fields +
      ", cel.bind(f, \"spec.tolerations[\" + string(tols.indexOf(t)) + \"]\", " + kSubject +
      " + \" \" + f + (" + everything + " ? " +
      str(" tolerates every taint, " + keys.front() + " included") +
      " : \" tolerates the taint \" + v[0]) + " +
      str(engine::forbiddenByFieldGuard(p, "forbidTolerations") + "remove ") + " + f + " +
      str("; pods reach those nodes only through a class that places them there") + ")))";
  return "cel.bind(tols, has(object.spec.tolerations) ? object.spec.tolerations : [], "
         "cel.bind(own, " +
         own + ", cel.bind(bad, tols.filter(t, " + offends + "), size(bad) == 0 ? [] : [" + msg +
         "])))";
}

// ---- checkAllowedValues(): engine/validate/allowed_values.cpp ----

// poolRuntimeClass(): the first of `pools` with a runtime class.
const std::string* poolRuntimeClass(const Pools& pools) {
  for (const auto* pool : pools)
    if (pool->runtimeClassName) return &*pool->runtimeClassName;
  return nullptr;
}

// effectivePriorityClass(): the pod's own (the global default counts as none), or the class's
// where the class writes it.
std::string effectivePriorityClass(const policy::PolicySet& p, const policy::WorkloadClass& cls) {
  const std::string own = specString("priorityClassName");
  const std::string name =
      p.globalDefaultPriorityClass
          ? "(" + own + " == " + str(*p.globalDefaultPriorityClass) + " ? \"\" : " + own + ")"
          : own;
  if (!cls.priorityClassName || cls.effects.priorityClass != policy::EffectMode::Mutate)
    return name;
  const std::string writes =
      cel::allOf({placed(cls) == "true" ? "" : placed(cls),
                  cls.overridePriorityClass ? "" : std::string("n == \"\"")});
  if (writes == "true") return str(*cls.priorityClassName);
  return "cel.bind(n, " + name + ", " + writes + " ? " + str(*cls.priorityClassName) + " : n)";
}

// effectiveRuntimeClass() on one side: the pod's own, or its pools' where the class writes it.
std::string effectiveRuntimeClass(const policy::WorkloadClass& cls, const Pools& pools) {
  const std::string own = specString("runtimeClassName");
  const std::string* pool = poolRuntimeClass(pools);
  if (pool == nullptr || cls.effects.runtimeClass != policy::EffectMode::Mutate) return own;
  return "(" + own + " == \"\" ? " + str(*pool) + " : " + own + ")";
}

// checkClassRuntimeClass(): a runtime class the pod names itself must be its pools' or one the
// class allows (in require mode always; in mutate mode when the class lists any).
std::string classRuntimeClass(const policy::PolicySet& p, const policy::WorkloadClass& cls) {
  auto side = [&](const Pools& pools) -> std::string {
    const std::string* pool = poolRuntimeClass(pools);
    const bool restricted =
        !cls.allowedRuntimeClasses.empty() ||
        (cls.effects.runtimeClass == policy::EffectMode::Require && pool != nullptr);
    if (!restricted) return "[]";
    std::vector<std::string> allowed;
    if (pool != nullptr) allowed.push_back(*pool);
    allowed.insert(allowed.end(), cls.allowedRuntimeClasses.begin(),
                   cls.allowedRuntimeClasses.end());
    return "cel.bind(rc, " + specString("runtimeClassName") + ", " +
           one("rc != \"\" && !(rc in " + cel::strList(allowed) + ")",
               std::string(kSubject) + " + \" names runtimeClassName \" + " + quoted("rc") + " + " +
                   str(" but class " + cls.name + " allows only " + engine::text::join(allowed) +
                       ": set spec.runtimeClassName: " + allowed.front())) +
           ")";
  };
  const std::string list = byGpu(side(gpuSide(p, cls)), side(cpuSide(p, cls)));
  return list == "[]" ? "" : list;
}

// checkRequiredLabels(): one finding naming every label to fix; `who` is a CEL string.
std::string requiredLabels(const std::vector<policy::RequiredLabel>& want, const std::string& who) {
  std::vector<std::string> wrong, fixes;
  for (const auto& label : want) {
    const std::string key = str(label.key);
    const std::string has = "(" + key + " in variables.labels)";
    const std::string value = "variables.labels[" + key + "]";
    const std::string ok = label.values.empty() ? has
                                                : "(" + has + " && " + value + " in " +
                                                      cel::strList(label.values) + ")";
    wrong.push_back("(" + ok + " ? \"\" : " + has + " ? " + str("label " + label.key + "=") +
                    " + " + quoted(value, 60) + " : " + str("no label " + label.key) + ")");
    fixes.push_back("(" + ok + " ? \"\" : " +
                    str(label.key + (label.values.empty()
                                         ? std::string()
                                         : " (one of " + engine::text::join(label.values) + ")")) +
                    ")");
  }
  return "cel.bind(lw, [" + joined(wrong) + "].filter(x, x != \"\"), size(lw) == 0 ? [] : [" +
         kSubject + " + \" has \" + lw.join(\", \") + \", but \" + " + who +
         " + \" requires it: set metadata.labels \" + [" + joined(fixes) +
         "].filter(x, x != \"\").join(\", \")])";
}

// checkNamespaceRule()'s priority class.
std::string namespacePriorityClass(const policy::PolicySet& p, const policy::WorkloadClass& cls,
                                   const policy::NamespaceRule& rule) {
  if (rule.priorityClassNames.empty()) return "";
  return "cel.bind(pe, " + effectivePriorityClass(p, cls) + ", " +
         one("pe != \"\" && !(pe in " + cel::strList(rule.priorityClassNames) + ")",
             std::string(kSubject) + " + \" would run with priorityClassName \" + " + quoted("pe") +
                 " + \" but \" + " + namespaceWho() + " + " +
                 str(" allows only " + engine::text::join(rule.priorityClassNames) +
                     ": set spec.priorityClassName to one of them")) +
         ")";
}

// checkNamespaceRule()'s runtime class.
std::string namespaceRuntimeClass(const policy::PolicySet& p, const policy::WorkloadClass& cls,
                                  const policy::NamespaceRule& rule) {
  if (rule.runtimeClassNames.empty()) return "";
  const std::string runtime = byGpu(effectiveRuntimeClass(cls, gpuSide(p, cls)),
                                    effectiveRuntimeClass(cls, cpuSide(p, cls)));
  return "cel.bind(re, " + runtime + ", " +
         one("re != \"\" && !(re in " + cel::strList(rule.runtimeClassNames) + ")",
             std::string(kSubject) + " + \" would run with runtimeClassName \" + " + quoted("re") +
                 " + \" but \" + " + namespaceWho() + " + " +
                 str(" allows only " + engine::text::join(rule.runtimeClassNames) +
                     ": set spec.runtimeClassName to one of them")) +
         ")";
}

bool listed(const std::vector<std::string>& names, const std::string& name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

// checkPriorityClassPresent(): `classRequires` and `namespaceRequires` are CEL conditions,
// `names` the CEL list of the matching namespace rules' priority classes.
std::string priorityClassMissing(const policy::PolicySet& p, const policy::WorkloadClass& cls,
                                 const std::string& classRequires,
                                 const std::string& namespaceRequires, const std::string& names) {
  // Required effects already say "set spec.priorityClassName: X" for this pod.
  if (cls.priorityClassName && cls.effects.priorityClass == policy::EffectMode::Require) return "";
  const std::string who = classRequires == "false" ? namespaceWho()
                          : namespaceRequires == "false"
                              ? str("class " + cls.name)
                              : "(" + namespaceRequires + " && !" + classRequires + " ? " +
                                    namespaceWho() + " : " + str("class " + cls.name) + ")";
  const std::string choices = cls.allowedPriorityClasses.empty()
                                  ? names
                                  : "cel.bind(nn, " + names + ", nn + " +
                                        cel::strList(cls.allowedPriorityClasses) +
                                        ".filter(a, size(nn) == 0 || a in nn))";
  return "(" +
         cel::anyOf({classRequires == "false" ? "" : classRequires,
                     namespaceRequires == "false" ? "" : namespaceRequires}) +
         " && " + effectivePriorityClass(p, cls) + " == \"\" ? cel.bind(ch, " + choices + ", [" +
         kSubject + " + \" names no priorityClassName, but \" + " + who +
         " + \" requires one: set spec.priorityClassName\" + (size(ch) == 0 ? " +
         str(" to the priority class of your tier") +
         " : \" to one of \" + ch.join(\", \"))]) : [])";
}

// ---- checkCheckpoint(): engine/validate/validate_checkpoint.cpp ----

std::string checkpointValue() {
  return "variables.annotations[" + str(policy::kCheckpointAnnotation) + "]";
}

std::string annotated() {
  return "(" + str(policy::kCheckpointAnnotation) + " in variables.annotations)";
}

std::string volumes() {
  return "(has(object.spec.volumes) ? object.spec.volumes : [])";
}

// mounted(): some container or init container mounts the volume named `name`.
std::string mounted(const std::string& name) {
  return "(variables.ctrs + variables.inits).exists(c, has(c.volumeMounts) && "
         "c.volumeMounts.exists(m, m.name == " +
         name + "))";
}

std::string checkpointMissing(const policy::CheckpointRule& rule, const std::string& why) {
  const std::string mountsNamed =
      rule.volumes.empty() ? ""
                           : " && !" + volumes() + ".exists(v, v.name in " +
                                 cel::strList(rule.volumes) + " && " + mounted("v.name") + ")";
  return one("!" + annotated() + mountsNamed,
             std::string(kSubject) + " + " +
                 str(why + " and can be preempted, but declares no checkpoint: " +
                     engine::howToDeclareCheckpoint(rule)));
}

std::string checkpointDangling(const policy::CheckpointRule& rule, const std::string& why) {
  const std::string prefix(policy::kCheckpointPvcPrefix);
  const std::string mountsClaim =
      volumes() +
      ".exists(v, has(v.persistentVolumeClaim) && v.persistentVolumeClaim.claimName == cl && " +
      mounted("v.name") + ")";
  return "(" + annotated() + " && " + checkpointValue() + ".startsWith(" + str(prefix) +
         ") ? cel.bind(cv, " + checkpointValue() + ", cel.bind(cl, cv.substring(" +
         std::to_string(prefix.size()) + "), " +
         one("!(cl != \"\" && " + mountsClaim + ")",
             std::string(kSubject) + " + \" declares checkpoint \" + " + quoted("cv") + " + " +
                 str(why + " but mounts no volume of PersistentVolumeClaim ") + " + " +
                 quoted("cl") + " + " +
                 str(": add it to spec.volumes (persistentVolumeClaim.claimName) and mount it in "
                     "the container that writes checkpoints, or " +
                     engine::howToDeclareCheckpoint(rule))) +
         ")) : [])";
}

// isUri(): scheme://rest, the scheme as RFC 3986 writes it, and something after it.
constexpr const char* kUriPattern = "(?s)^[A-Za-z][A-Za-z0-9+.-]*://.";

std::string checkpointInvalid(const policy::CheckpointRule& rule, const std::string& why) {
  const std::string prefix(policy::kCheckpointPvcPrefix);
  return one(annotated() + " && !" + checkpointValue() + ".startsWith(" + str(prefix) + ") && !" +
                 checkpointValue() + ".matches(" + str(kUriPattern) + ")",
             std::string(kSubject) + " + \" declares checkpoint \" + " + quoted(checkpointValue()) +
                 " + " +
                 str(why + ", which is neither pvc:<claim> nor a URI: " +
                     engine::howToDeclareCheckpoint(rule)));
}

}  // namespace

std::vector<RuleList> placementGuards(const policy::PolicySet& p) {
  if (!p.fieldGuards.guardsPlacement()) return {};
  return {{rules::kNodeNameForbidden, nodeNameGuard(p)},
          {rules::kNodeSelectorForbidden, nodeSelectorGuard(p)},
          {rules::kNodeAffinityForbidden, nodeAffinityGuard(p)},
          {rules::kTolerationForbidden, tolerationGuard(p)}};
}

std::vector<RuleList> allowedValues(const policy::PolicySet& p, const policy::WorkloadClass& cls) {
  std::vector<RuleList> out;
  const std::string classRules = inScope(cls.appliesTo, cls);
  out.push_back({rules::kRuntimeClassNotAllowed, gated(classRules, classRuntimeClass(p, cls))});
  if (!cls.requiredLabels.empty())
    out.push_back(
        {rules::kRequiredLabelMissing,
         gated(classRules, requiredLabels(cls.requiredLabels, str("class " + cls.name)))});
  std::vector<std::string> requiring;
  // The matching rules' priority classes, each once, in the rules' order.
  std::string names = "[]";
  for (const auto& rule : p.namespaceRules) {
    const std::string scope = inScope(rule.appliesTo, cls);
    if (scope == "false") continue;
    const std::string matches =
        cel::allOf({scope == "true" ? "" : scope, cel::namespaceSelector(rule.namespaces)});
    out.push_back(
        {rules::kPriorityClassNotAllowed, gated(matches, namespacePriorityClass(p, cls, rule))});
    out.push_back(
        {rules::kRuntimeClassNotAllowed, gated(matches, namespaceRuntimeClass(p, cls, rule))});
    if (!rule.requiredLabels.empty())
      out.push_back({rules::kRequiredLabelMissing,
                     gated(matches, requiredLabels(rule.requiredLabels, namespaceWho()))});
    if (rule.requirePriorityClass) requiring.push_back(matches);
    if (!rule.priorityClassNames.empty()) {
      std::vector<std::string> once;
      for (const auto& n : rule.priorityClassNames)
        if (!listed(once, n)) once.push_back(n);
      names = "cel.bind(nn, " + names + ", nn + (" + matches + " ? " + cel::strList(once) +
              ".filter(x, !(x in nn)) : []))";
    }
  }
  const std::string classRequires = cls.requirePriorityClass ? classRules : "false";
  const std::string namespaceRequires = cel::anyOf(requiring);
  if (classRequires != "false" || namespaceRequires != "false")
    out.push_back({rules::kPriorityClassMissing,
                   priorityClassMissing(p, cls, classRequires, namespaceRequires, names)});
  return out;
}

std::vector<RuleList> allPodsAllowedValues(const policy::PolicySet& p) {
  if (!p.allPodsJudged) return {};
  // engine/decide's evaluate(): a GPU pod no class takes is judged by these rules only when
  // unclassifiedGpuPods allows it.
  const bool gpuPods = p.unclassifiedGpuPods.action == policy::UnclassifiedGpuPods::Action::Allow;
  const std::string judged =
      gpuPods ? "variables.cls == \"\"" : "(variables.cls == \"\" && !variables.hasGpu)";
  std::vector<RuleList> out = allowedValues(p, p.allPodsRules);
  for (auto& r : out) r.list = gated(judged, r.list);
  return out;
}

std::string nodeSelectorConflict(const policy::PolicySet& p, const policy::WorkloadClass& cls) {
  if (cls.placement.via != policy::Placement::Via::NodeSelector ||
      cls.placement.onConflict == policy::Placement::OnConflict::Overwrite)
    return "";
  // One conflict explains it: the first pool's first key (in the pool's key order).
  auto side = [&](const Pools& pools) {
    std::string out = "[]";
    for (auto pool = pools.rbegin(); pool != pools.rend(); ++pool)
      for (auto kv = (*pool)->nodeSelector.rbegin(); kv != (*pool)->nodeSelector.rend(); ++kv) {
        const auto& [k, v] = *kv;
        const std::string key = str(k);
        out = "(" + key + " in ns && ns[" + key + "] != " + str(v) + " ? [" + kSubject +
              " + \" sets spec.nodeSelector \" + " + str(engine::text::oneLine(k, 80) + "=") +
              " + " + quoted("ns[" + key + "]") + " + " +
              str(" but class " + cls.name + " places its pods on pool " + (*pool)->name +
                  ", which needs " + k + "=" + engine::text::quoted(v) +
                  ": remove that nodeSelector entry (the webhook sets it) or set it to " +
                  engine::text::quoted(v)) +
              "] : " + out + ")";
      }
    return out;
  };
  const std::string list = byGpu(side(gpuSide(p, cls)), side(cpuSide(p, cls)));
  if (list == "[]") return "";
  return gated(placed(cls), "cel.bind(ns, " + nodeSelector() + ", " + list + ")");
}

std::vector<RuleList> checkpoints(const policy::PolicySet& p, const policy::WorkloadClass& cls) {
  using Make = std::function<std::string(const policy::CheckpointRule&, const std::string&)>;
  // checkpointRule(): the class's own rule wins over its priority tier's.
  auto bySource = [&](const Make& make) -> std::string {
    if (cls.requireCheckpoint)
      return make(*cls.requireCheckpoint,
                  " is in class " + cls.name + ", which requires a checkpoint,");
    auto tierList = [&](const policy::PriorityTier& tier) {
      return make(*tier.requireCheckpoint,
                  " runs in priority tier " + tier.name + ", which requires a checkpoint,");
    };
    // engine/classify/priority_tier's effectivePriorityClass() of a placed pod.
    if (cls.priorityClassName && cls.overridePriorityClass) {
      const auto* tier = p.findTier(*cls.priorityClassName);
      return tier != nullptr && tier->requireCheckpoint ? tierList(*tier) : "";
    }
    const std::string own = specString("priorityClassName");
    std::string name = own;
    if (cls.priorityClassName) {
      std::string unset = own + " == \"\"";
      if (p.globalDefaultPriorityClass)
        unset += " || " + own + " == " + str(*p.globalDefaultPriorityClass);
      name = "(" + unset + " ? " + str(*cls.priorityClassName) + " : " + own + ")";
    }
    std::string out = "[]";
    for (auto tier = p.priorityTiers.rbegin(); tier != p.priorityTiers.rend(); ++tier)
      if (tier->requireCheckpoint)
        out = "(tn == " + str(tier->name) + " ? " + tierList(*tier) + " : " + out + ")";
    return out == "[]" ? "" : "cel.bind(tn, " + name + ", " + out + ")";
  };
  return {{rules::kCheckpointMissing, gated(placed(cls), bySource(checkpointMissing))},
          {rules::kCheckpointDangling, gated(placed(cls), bySource(checkpointDangling))},
          {rules::kCheckpointInvalid, gated(placed(cls), bySource(checkpointInvalid))}};
}

}  // namespace gpua::native
