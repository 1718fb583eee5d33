#include "native/rules_cel.hpp"

#include <set>

#include "policy/node_requirement.hpp"

#include "engine/classify/class_placement.hpp"
#include "engine/core/text.hpp"
#include "engine/pod/device_env.hpp"
#include "engine/pod/gpu_request.hpp"
#include "engine/validate/quota_check.hpp"
#include "native/cel_text.hpp"
#include "native/guard_rules_cel.hpp"
#include "native/placement_conflict_cel.hpp"
#include "native/require_rules_cel.hpp"
#include "native/resource_rules_cel.hpp"
#include "native/rule_cel.hpp"
#include "policy/rule_ids.hpp"

namespace gpua::native {

namespace rules = policy::rules;
using cel::str;

namespace {

// " (label k=v)" or "" when unclassifiedGpuPods assigned the class.
std::string matchedBy() {
  return "(variables.matched == \"\" ? \"\" : \" (\" + variables.matched + \")\")";
}

// selectorWord() of validate_class.cpp.
std::string selectorWord(const policy::WorkloadClass& cls) {
  return "(variables.matched == \"\" ? " + str("the labels that select class " + cls.name) +
         " : variables.matched.startsWith(\"label \") && !variables.matched.contains(\" and \") ? "
         "\"the \" + variables.matched : " +
         str("what selects class " + cls.name + " (") + " + variables.matched + \")\")";
}

std::string visibleDevices(const policy::PolicySet& p) {
  if (!p.fieldGuards.visibleDevicesEnv) return "";
  const ContainerCel cc{p};
  // field_guards.cpp: NVIDIA_/CUDA_VISIBLE_DEVICES not void, none or empty (valueFrom exposes).
  const std::vector<std::string> variables(std::begin(engine::kDeviceVariables),
                                           std::end(engine::kDeviceVariables));
  const std::vector<std::string> hiding(std::begin(engine::kHidingValues),
                                        std::end(engine::kHidingValues));
  const std::string exposes = "(e.name in " + cel::strList(variables) +
                              " && (has(e.valueFrom) || (has(e.value) && !(e.value in " +
                              cel::strList(hiding) + "))))";
  auto cond = [&](const std::string& c) {
    return "(!" + cc.wantsGpu(c) + " && has(" + c + ".env) && " + c + ".env.exists(e, " + exposes +
           "))";
  };
  auto msg = [&](const std::string& c, bool init) {
    return "cel.bind(e, " + c + ".env.filter(e, " + exposes + ")[0], " + kSubject + " + \" \" + " +
           cc.label(c, init) +
           " + \" sets \" + e.name + \" to \" + (has(e.valueFrom) ? \"a value from valueFrom\" : "
           "\"\\\"\" + " +
           cel::cut("e.value", 40) + " + \"\\\"\") + " +
           str(" but asks for no GPU, which would hand it the node's GPUs behind the device "
               "plugin's back: request the GPU in resources.limits, or remove ") +
           " + e.name + \" (or set it to void)\")";
  };
  return "[" + firstContainer(cond, msg, "\"\"") + "].filter(m, m != \"\")";
}

std::string unclassified(const policy::PolicySet& p) {
  if (p.unclassifiedGpuPods.action != policy::UnclassifiedGpuPods::Action::Deny) return "";
  const ContainerCel cc{p};
  auto ask = [&](const std::string& c, bool init) {
    return cc.label(c, init) + " + (" + cc.units(c) + " > 0 ? cel.bind(k, " + cc.gpuKeys(c) +
           ".filter(k, " + cc.gpuKeys(c) + ".all(j, k <= j))[0], \" asks for \" + string(" +
           cc.unitsOf(c, "k") + ") + \" \" + k) : \" claims devices (resources.claims)\")";
  };
  const std::string gpuAsk = firstContainer([&](const std::string& c) { return cc.wantsGpu(c); },
                                            ask, str("claims devices (spec.resourceClaims)"));
  std::vector<std::string> names;
  for (const auto& c : p.classes)
    if (c.gpus.request != policy::GpuRequest::Forbidden) names.push_back(c.name);
  const std::string hint = classLabelHint(p, nullptr, [](const auto&) { return "true"; });
  const std::string fix =
      "cel.bind(h, " + hint + ", h == \"\" ? " +
      str("ask the platform team which of the classes (" +
          (names.empty() ? std::string("none") : engine::text::join(names)) +
          ") fits and how to select it") +
      " : \"add the label \" + h + \" to the pod, or ask the platform team which class fits\")";
  return one("variables.cls == \"\" && variables.hasGpu",
             std::string(kSubject) + " + \" \" + " + gpuAsk + " + " +
                 str(" but matches no GPU class of policy " + engine::text::quoted(p.name) + ": ") +
                 " + " + fix);
}

std::string classNotAllowed(const policy::WorkloadClass& cls) {
  if (!cls.allowedNamespaces) return "";
  return one(
      "!" + cel::namespaceSelector(*cls.allowedNamespaces),
      std::string(kSubject) + " + " + str(" matches GPU class " + cls.name) + " + " + matchedBy() +
          " + \", which namespace \\\"\" + " + cel::cut("variables.nsName", 80) + " + " +
          str("\" may not use (class " + cls.name + " is for " +
              engine::describeNamespaces(*cls.allowedNamespaces) + "): run it there, remove ") +
          " + " + selectorWord(cls) + " + \", or ask the platform team to allow this namespace\"");
}

std::string requestPresence(const policy::PolicySet& p, const policy::WorkloadClass& cls) {
  const ContainerCel cc{p};
  if (cls.gpus.request == policy::GpuRequest::Required) {
    const std::string resource =
        cls.resolvedResource.empty() ? std::string(engine::kWholeGpu) : cls.resolvedResource;
    return one("!variables.hasGpu",
               std::string(kSubject) + " + " + str(" is in GPU class " + cls.name) + " + " +
                   matchedBy() + " + " +
                   str(" but no container asks for a GPU: add resources.limits " + resource +
                       ": 1 to the container that needs it, or remove ") +
                   " + " + selectorWord(cls) + " + \" if the pod needs no GPU\"");
  }
  if (cls.gpus.request != policy::GpuRequest::Forbidden) return "";
  const std::string hint = classLabelHint(p, &cls, [](const auto&) { return "true"; });
  const std::string instead = "cel.bind(h, " + hint +
                              ", h == \"\" ? \"ask the platform team for a GPU class\" : "
                              "\"label the pod \" + h + \" to use a GPU class\")";
  auto msg = [&](const std::string& c, bool init) {
    return std::string(kSubject) + " + \" \" + " + cc.label(c, init) +
           " + \" asks for \" + string(" + cc.units(c) + ") + \" \" + " + cc.resourceWord(c) +
           " + " + str(" but class " + cls.name) + " + " + matchedBy() +
           " + \" does not allow GPUs: remove the GPU request, or \" + " + instead;
  };
  const std::string claims = std::string(kSubject) + " + " +
                             str(" claims devices (resourceClaims) but class " + cls.name) + " + " +
                             matchedBy() + " + \" does not allow GPUs: remove the claim, or \" + " +
                             instead;
  return one("variables.hasGpu",
             firstContainer([&](const std::string& c) { return cc.wantsGpu(c); }, msg, claims));
}

std::string maxPerContainer(const policy::PolicySet& p, const policy::WorkloadClass& cls) {
  if (!cls.gpus.maxPerContainer) return "";
  const ContainerCel cc{p};
  const std::string max = std::to_string(*cls.gpus.maxPerContainer);
  return perContainer(
      [&](const std::string& c) { return cc.units(c) + " > " + max; },
      [&](const std::string& c, bool init) {
        return std::string(kSubject) + " + \" \" + " + cc.label(c, init) +
               " + \" asks for \" + string(" + cc.units(c) + ") + \" \" + " + cc.resourceWord(c) +
               " + " +
               str(" but class " + cls.name + " allows at most " + max +
                   " per container: spread the work over more containers or pods, or ask the "
                   "platform team for a larger limit");
      });
}

// The pod's GPU resource when every container asks for the same one, else "GPUs".
std::string podResourceWord(const ContainerCel& cc) {
  const std::string all = "(variables.ctrs + variables.inits)";
  return "cel.bind(f, " + all + ".filter(c, size(" + cc.gpuKeys("c") +
         ") > 0), size(f) == 0 ? \"GPUs\" : cel.bind(k0, " + cc.gpuKeys("f[0]") + "[0], " + all +
         ".all(c, " + cc.gpuKeys("c") + ".all(k, k == k0)) ? k0 : \"GPUs\"))";
}

std::string maxPerPod(const policy::PolicySet& p, const policy::WorkloadClass& cls) {
  if (!cls.gpus.maxPerPod) return "";
  const ContainerCel cc{p};
  const std::string max = std::to_string(*cls.gpus.maxPerPod);
  auto holders = [&](bool labels) {
    auto name = [&](const std::string& c, bool init) {
      return labels ? cc.label(c, init) : "\"\\\"\" + " + cel::cut(c + ".name", 80) + " + \"\\\"\"";
    };
    return perContainer([&](const std::string& c) { return cc.units(c) + " > 0"; }, name);
  };
  const std::string bigger = classLabelHint(p, &cls, [](const policy::WorkloadClass& c) {
    return c.gpus.maxPerPod ? std::to_string(*c.gpus.maxPerPod) + " >= variables.total"
                            : std::string("true");
  });
  const std::string listed =
      "(size(hn) == 1 ? \"\" : \" (containers \" + (size(hn) <= 5 ? hn.join(\", \") : "
      "[hn[0], hn[1], hn[2], hn[3], hn[4]].join(\", \") + \" and \" + string(size(hn) - 5) + "
      "\" more\") + \")\")";
  const std::string msg =
      "cel.bind(hl, " + holders(true) + ", cel.bind(hn, " + holders(false) + ", cel.bind(b, " +
      bigger + ", " + kSubject + " + (size(hl) == 1 ? \" \" + hl[0] : \"\") + \" asks for \" + " +
      "string(variables.total) + \" \" + " + podResourceWord(cc) + " + " +
      str(" but class " + cls.name + " allows at most " + max +
          " per pod: split the job across more pods") +
      " + (b == \"\" ? \" \" : \", label the pod \" + b + \" for a class that allows \" + "
      "string(variables.total) + \", \") + \"or ask the platform team for a larger limit\" + " +
      listed + ")))";
  return one("variables.total > " + max, msg);
}

bool sharedPool(const policy::Pool& pool) {
  return pool.sharing == policy::Sharing::TimeSlicing || pool.sharing == policy::Sharing::Mps;
}

std::string sharedOverOne(const policy::PolicySet& p, const policy::WorkloadClass& cls) {
  std::set<std::string> shared;  // isSharedResource() of validate_class.cpp
  if (cls.sharedResource) shared.insert(cls.resolvedResource);
  for (const auto& pool : p.pools)
    if (pool.resource != engine::kWholeGpu && sharedPool(pool)) shared.insert(pool.resource);
  if (shared.empty()) return "";
  std::set<std::string> mps;  // sharingWord(): MPS when a pool of the class shares by MPS
  for (const auto& name : cls.pools)
    if (const auto* pool = p.findPool(name); pool && pool->sharing == policy::Sharing::Mps)
      mps.insert(pool->resource);
  const ContainerCel cc{p};
  const bool rewrites = !cls.resolvedResource.empty() &&
                        cls.resolvedResource != engine::kWholeGpu &&
                        cls.effects.resourceName == policy::EffectMode::Mutate;
  // The resource a key counts as: nvidia.com/gpu is the class's when the webhook rewrites it.
  const std::string rewrite = "(variables.skip != \"validateOnly\" && !variables.requestsMig)";
  auto as = [&](const std::string& k) {
    return rewrites ? "(" + k + " == " + str(engine::kWholeGpu) + " && " + rewrite + " ? " +
                          str(cls.resolvedResource) + " : " + k + ")"
                    : k;
  };
  const std::string sharedList = cel::strList({shared.begin(), shared.end()});
  auto offends = [&](const std::string& c) {
    return cc.gpuKeys(c) + ".filter(k, " + cc.unitsOf(c, "k") + " > 1 && " + as("k") + " in " +
           sharedList + ")";
  };
  return perContainer(
      [&](const std::string& c) { return "size(" + offends(c) + ") > 0"; },
      [&](const std::string& c, bool init) {
        return "cel.bind(k, " + offends(c) + "[0], " + kSubject + " + \" \" + " +
               cc.label(c, init) + " + \" asks for \" + string(" + cc.unitsOf(c, "k") +
               ") + \" \" + k + " + str(" but class " + cls.name + " shares GPUs by ") + " + (" +
               as("k") + " in " + cel::strList({mps.begin(), mps.end()}) +
               " ? \"MPS\" : \"time-slicing\") + " +
               str(", where more than 1 unit adds no compute or memory: request 1, or use a class "
                   "with whole GPUs") +
               ")";
      });
}

std::string migProfiles(const policy::PolicySet& p, const policy::WorkloadClass& cls) {
  if (cls.pools.empty()) return "";
  std::vector<std::string> offered;
  for (const auto& name : cls.pools)
    if (const auto* pool = p.findPool(name); pool && pool->sharing == policy::Sharing::Mig)
      for (const auto& profile : pool->migProfiles) offered.push_back(profile);
  const std::string offer = offered.empty() ? "no pool of class " + cls.name + " has MIG"
                                            : "offered: " + engine::text::join(offered);
  const ContainerCel cc{p};
  auto bad = [&](const std::string& c) {
    // The profile is what follows the MIG prefix.
    return cc.gpuKeys(c) + ".filter(k, k.startsWith(" + str(engine::kMigPrefix) +
           ") && !(k.substring(" + std::to_string(engine::kMigPrefix.size()) + ") in " +
           cel::strList(offered) + "))";
  };
  return perContainer(
      [&](const std::string& c) { return "size(" + bad(c) + ") > 0"; },
      [&](const std::string& c, bool init) {
        return "cel.bind(k, " + bad(c) + "[0], " + kSubject + " + \" \" + " + cc.label(c, init) +
               " + \" asks for \" + " + cel::cut("k", 80) + " + " +
               str(" but no pool of class " + cls.name + " offers MIG profile ") + " + " +
               cel::cut("k.substring(15)", 40) + " + " +
               str(" (" + offer +
                   "): request one of the offered profiles, or nvidia.com/gpu to get the "
                   "class's default") +
               ")";
      });
}

std::string priorityClass(const policy::PolicySet& p, const policy::WorkloadClass& cls) {
  if (cls.overridePriorityClass) return "";
  std::vector<std::string> ok;  // named classes that pass
  if (cls.priorityClassName) ok.push_back(*cls.priorityClassName);
  if (p.globalDefaultPriorityClass) ok.push_back(*p.globalDefaultPriorityClass);
  for (const auto& a : cls.allowedPriorityClasses) ok.push_back(a);
  const std::string name = "object.spec.priorityClassName";
  const std::string passes =
      "(" + name + " in " + cel::strList(ok) +
      (cls.allowedPriorityClasses.empty() ? " || !" + name + ".startsWith(\"system-\"))" : ")");
  std::vector<std::string> names;
  if (cls.priorityClassName) names.push_back(*cls.priorityClassName);
  for (const auto& a : cls.allowedPriorityClasses)
    if (!cls.priorityClassName || a != *cls.priorityClassName) names.push_back(a);
  const std::string allowedText =
      names.empty() ? std::string("any class not named system-*") : engine::text::join(names);
  return one(cel::allOf({scopeTest(cls.appliesTo, cls), "has(" + name + ") && " + name + " != \"\"",
                         "!" + passes}),
             std::string(kSubject) + " + \" names priorityClassName \\\"\" + " +
                 cel::cut(name, 80) + " + " +
                 str("\" but class " + cls.name + " allows only " + allowedText +
                     ": remove priorityClassName" +
                     (cls.priorityClassName ? " (the class sets " + *cls.priorityClassName + ")"
                                            : std::string()) +
                     " or use an allowed one"));
}

// ---- gpu-pool-without-request: engine/validate/validate_pool_targeting ----

// The first non-empty string of the CEL list `list`, else "".
std::string firstHit(const std::string& list) {
  return cel::firstNonEmpty(list);
}

// The pool requirements only the pool's kind of node meets (In, Exists, Gt, Lt).
std::vector<policy::NodeRequirementRef> keyed(const policy::Pool& pool) {
  std::vector<policy::NodeRequirementRef> out;
  pool.forEachRequirement([&](const policy::NodeRequirementRef& r) {
    if (r.requiresKey()) out.push_back(r);
  });
  return out;
}

// nodeSelectorHit(): "nodeSelector k=v" for the first requirement spec.nodeSelector meets.
std::string nodeSelectorHit(const policy::Pool& pool) {
  std::string out = "\"\"";
  const auto reqs = keyed(pool);
  for (auto r = reqs.rbegin(); r != reqs.rend(); ++r) {
    const std::string k = str(r->key);
    out = "(" + k + " in ns && " + cel::nodeValueMatches(*r, "ns[" + k + "]") + " ? " +
          str("nodeSelector " + std::string(r->key) + "=") + " + ns[" + k + "] : " + out + ")";
  }
  return out;
}

// expressionHit() of expression `e`: Exists on a key the pool requires, or In with a value it
// accepts.
std::string expressionHit(const policy::Pool& pool) {
  std::string out = "\"\"";
  const auto reqs = keyed(pool);
  for (auto r = reqs.rbegin(); r != reqs.rend(); ++r) {
    const std::string key(r->key);
    out = "(e.key == " + str(key) + " ? (e.operator == \"Exists\" ? " +
          str("node affinity " + key + " Exists") + " : e.operator == \"In\" && has(e.values) ? " +
          firstHit("e.values.map(v, " + cel::nodeValueMatches(*r, "v") + " ? " +
                   str("node affinity " + key + "=") + " + v : \"\")") +
          " : \"\") : " + out + ")";
  }
  return out;
}

std::string affinityHit(const policy::Pool& pool) {
  return firstHit("terms.map(t, has(t.matchExpressions) ? " +
                  firstHit("t.matchExpressions.map(e, " + expressionHit(pool) + ")") + " : \"\")");
}

// tolerationHit(): a toleration naming a pool taint's key (a blanket one says nothing).
std::string tolerationHit(const policy::Pool& pool) {
  std::string out = "\"\"";
  for (auto t = pool.taints.rbegin(); t != pool.taints.rend(); ++t)
    out = "(tols.exists(t, (has(t.key) ? t.key : \"\") == " + str(t->key) +
          " && ((has(t.operator) ? t.operator : \"\") == \"Exists\" || (has(t.value) ? t.value : "
          "\"\") == " +
          str(t->value) +
          ") && (!has(t.effect) || t.effect == \"\" || t.effect == " + str(t->effect) + ")) ? " +
          str("toleration " + t->key) + " : " + out + ")";
  return out;
}

// The GPU-less pods the webhook judges for pool targeting: no class (and no GPU), or a class
// whose GPUs are forbidden.
std::string poolTargeting(const policy::PolicySet& p) {
  if (!p.fieldGuards.gpuPoolTargeting || p.pools.empty()) return "";
  std::vector<std::string> judged{""};  // "": no class took the pod
  for (const auto& c : p.classes)
    if (c.gpus.request == policy::GpuRequest::Forbidden) judged.push_back(c.name);
  std::vector<std::string> perPool;
  for (const auto& pool : p.pools) {
    // The first way the pod reaches the pool, and in words which field to remove.
    const std::string how = "cel.bind(sel, " + nodeSelectorHit(pool) + ", cel.bind(aff, " +
                            affinityHit(pool) +
                            ", sel != \"\" ? [sel, \"nodeSelector entry\"] : "
                            "aff != \"\" ? [aff, \"node affinity\"] : [" +
                            tolerationHit(pool) + ", \"toleration\"]))";
    perPool.push_back("cel.bind(h, " + how + ", h[0] == \"\" ? \"\" : " + std::string(kSubject) +
                      " + " + str(" targets GPU pool " + pool.name + " (") + " + " +
                      cel::cut("h[0]", 120) +
                      " + \") but asks for no GPU: add a GPU to resources.limits of the container "
                      "that needs one, or remove the \" + h[1] + \" so the pod runs on CPU "
                      "nodes\")");
  }
  std::string list;
  for (const auto& one : perPool) list += (list.empty() ? "" : ", ") + one;
  // One finding is enough to explain it: the first pool the pod reaches.
  return "(!variables.hasGpu && variables.cls in " + cel::strList(judged) + " ? cel.bind(ns, " +
         nodeSelector() + ", cel.bind(terms, " + requiredTerms() +
         ", cel.bind(tols, has(object.spec.tolerations) ? object.spec.tolerations : [], "
         "cel.bind(msgs, [" +
         list + "].filter(m, m != \"\"), size(msgs) > 0 ? [msgs[0]] : [])))) : [])";
}

// spec.ruleExemptions: the rule's list is dropped for the pods an exemption of it covers.
std::string exemptFrom(const policy::PolicySet& p, std::string_view rule) {
  std::vector<std::string> tests;
  for (const auto& e : p.ruleExemptions) {
    bool covers = e.rules.empty();
    for (const auto& r : e.rules) covers = covers || r == rule;
    if (covers) tests.push_back(ruleExemptionCovers(e));
  }
  return cel::anyOf(tests);
}

// One rule's violation list, named for the variable that holds it.
struct Part {
  std::string rule;
  std::string list;
};

void add(std::vector<Part>& lists, const policy::PolicySet& p, std::string_view rule,
         std::string list) {
  if (list.empty()) return;
  const std::string exempt = exemptFrom(p, rule);
  lists.push_back({std::string(rule),
                   exempt == "false" ? std::move(list) : "(" + exempt + " ? [] : " + list + ")"});
}

void add(std::vector<Part>& lists, const policy::PolicySet& p, std::vector<RuleList> more) {
  for (auto& r : more) add(lists, p, r.rule, std::move(r.list));
}

// The class's rules, each judging only the class's own pods.
std::vector<Part> classRules(const policy::PolicySet& p, const policy::WorkloadClass& cls) {
  std::vector<Part> lists;
  add(lists, p, rules::kClassNotAllowed, classNotAllowed(cls));
  add(lists, p,
      cls.gpus.request == policy::GpuRequest::Required ? rules::kMissingGpuRequest
                                                       : rules::kGpuForbidden,
      requestPresence(p, cls));
  add(lists, p, rules::kMaxPerContainer, maxPerContainer(p, cls));
  add(lists, p, rules::kMaxPerPod, maxPerPod(p, cls));
  add(lists, p, rules::kSharedGpuOverOne, sharedOverOne(p, cls));
  add(lists, p, rules::kMigProfileUnavailable, migProfiles(p, cls));
  add(lists, p, rules::kPriorityClassNotAllowed, priorityClass(p, cls));
  // checkRequiredEffects(): the effects the class requires rather than writes.
  for (auto& r : requiredEffectRules(p, cls)) add(lists, p, r.rule, std::move(r.list));
  // validate_class.cpp's last check: allowed_values.cpp (guard_rules_cel).
  add(lists, p, allowedValues(p, cls));
  // validateClassWorkloadRules(): the containers rules, node-selector conflicts, checkpoints.
  for (auto& r : containerResourceRules(p, cls)) add(lists, p, r.rule, std::move(r.list));
  add(lists, p, rules::kNodeSelectorConflict, nodeSelectorConflict(p, cls));
  add(lists, p, checkpoints(p, cls));
  // After the class's workload rules, as engine/decide's evaluate() judges it.
  add(lists, p, rules::kPlacementConflict, placementConflictViolations(p, cls));
  for (auto& l : lists) l.list = "(variables.cls == " + str(cls.name) + " ? " + l.list + " : [])";
  return lists;
}

// Every compiled rule's list in the engine's order: the device variable guard, unclassified GPU
// pods, each class's rules, then pool targeting.
std::vector<Part> parts(const policy::PolicySet& p) {
  std::vector<Part> lists;
  add(lists, p, rules::kVisibleDevicesWithoutGpu, visibleDevices(p));
  // engine/decide's guardPlacement(), before the pod's class is judged.
  add(lists, p, placementGuards(p));
  add(lists, p, rules::kUnclassifiedGpuPod, unclassified(p));
  for (const auto& cls : p.classes)
    for (auto& part : classRules(p, cls)) lists.push_back(std::move(part));
  // After the class's rules, as engine/decide's evaluate() judges it last.
  add(lists, p, rules::kGpuPoolWithoutRequest, poolTargeting(p));
  // validateAllPodsRules(): the pods no class takes, by the allPods pseudo-class, after that.
  std::vector<Part> allPods;
  for (auto& r : containerResourceRules(p, p.allPodsRules))
    add(allPods, p, r.rule, std::move(r.list));
  for (auto& r : requiredContainerDefaults(p, p.allPodsRules))
    add(allPods, p, r.rule, std::move(r.list));
  for (auto& part : allPods) {
    part.list = "(" + allPodsJudged(p) + " ? " + part.list + " : [])";
    lists.push_back(std::move(part));
  }
  add(lists, p, allPodsAllowedValues(p));  // gated by itself
  return lists;
}

// A CEL identifier for the rule's variable: "v3_max_per_pod".
std::string variableName(std::size_t index, const std::string& rule) {
  std::string out = "v" + std::to_string(index) + "_";
  for (char c : rule) out += (c == '-' ? '_' : c);
  return out;
}

}  // namespace

const std::vector<std::string>& compiledRuleIds() {
  static const std::vector<std::string> ids{
      rules::kVisibleDevicesWithoutGpu, rules::kUnclassifiedGpuPod, rules::kClassNotAllowed,
      rules::kMissingGpuRequest, rules::kGpuForbidden, rules::kMaxPerContainer, rules::kMaxPerPod,
      rules::kSharedGpuOverOne, rules::kMigProfileUnavailable, rules::kPriorityClassNotAllowed,
      rules::kGpuPoolWithoutRequest, rules::kPlacementConflict,
      // resource_rules_cel, require_rules_cel
      rules::kContainerResourcesMissing, rules::kQosNotGuaranteed, rules::kQosBestEffort,
      rules::kResourcesPerGpuExceeded, rules::kLimitRequestRatioExceeded,
      rules::kContainerResourcesExceeded, rules::kRequiredEnvMissing,
      rules::kResourceRequestsRequired, rules::kResourceNameRequired, rules::kNodePlacementRequired,
      rules::kTolerationRequired, rules::kPriorityClassRequired, rules::kRuntimeClassRequired,
      // guard_rules_cel
      rules::kNodeNameForbidden, rules::kNodeSelectorForbidden, rules::kNodeAffinityForbidden,
      rules::kTolerationForbidden, rules::kRuntimeClassNotAllowed, rules::kRequiredLabelMissing,
      rules::kPriorityClassMissing, rules::kNodeSelectorConflict, rules::kCheckpointMissing,
      rules::kCheckpointDangling, rules::kCheckpointInvalid};
  return ids;
}

std::string violationList(const policy::PolicySet& p) {
  std::string out;
  for (const auto& part : parts(p)) out += (out.empty() ? "" : " + ") + part.list;
  return out.empty() ? "[]" : out;
}

std::vector<CelVariable> violationVariables(const policy::PolicySet& p) {
  std::vector<CelVariable> out;
  std::string all;
  for (auto& part : parts(p)) {
    out.push_back({variableName(out.size() + 1, part.rule), std::move(part.list)});
    all += (all.empty() ? "variables." : " + variables.") + out.back().name;
  }
  out.push_back({"violations", all.empty() ? "[]" : all});
  return out;
}

}  // namespace gpua::native
