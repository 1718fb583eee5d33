#include "engine/decide.hpp"
#include "policy/rule_ids.hpp"

#include <algorithm>
#include <exception>
#include <new>

#include "engine/classify/claim_resolution.hpp"
#include "engine/classify/class_hints.hpp"
#include "engine/classify/class_placement.hpp"
#include "engine/classify/classify.hpp"
#include "engine/classify/exemptions.hpp"
#include "engine/classify/gpu_usage.hpp"
#include "engine/classify/priority_tier.hpp"
#include "engine/core/json_util.hpp"
#include "engine/core/text.hpp"
#include "engine/mutate/mutation.hpp"
#include "engine/pod/gpu_request.hpp"
#include "engine/pod/pod_shape.hpp"
#include "engine/pod/pod_view.hpp"
#include "engine/pod/workload_kinds.hpp"
#include "engine/pod/workload_templates.hpp"
#include "engine/validate/capacity_check.hpp"
#include "engine/validate/field_guards.hpp"
#include "engine/validate/placement_conflict.hpp"
#include "engine/validate/quota_check.hpp"
#include "engine/validate/validate.hpp"
#include "engine/verdict.hpp"

namespace gpua::engine {

namespace rules = policy::rules;

namespace {

using Outcome = Decision::Outcome;

struct Scope {
  const RequestContext& context;
  const policy::PolicySet& policy;
  const UsageSnapshot& usage;
  std::string_view namespaceName;
  const SupplySnapshot& supply;
  std::string_view kind;  // the object's kind (the request's, else the object's own)
};

// How one pod or template came out, before it is folded into the Decision.
struct Evaluation {
  Outcome outcome = Outcome::NoGpu;
  const policy::WorkloadClass* cls = nullptr;
  bool validateOnly = false;
  // Resolved once for validation, quota and mutation (Classified only).
  PoolList pools;
  std::string_view rewriteTo;  // nvidia.com/gpu is renamed to this; empty = no rewrite
  // The pod's own placement contradicts every pool of its class (placement-conflict).
  bool placementConflict = false;
  // No class took the pod and the allPods rules judged it (their defaults may be written).
  bool allPodsRules = false;
};

const policy::WorkloadClass* assignedClass(const policy::PolicySet& policy) {
  const auto& u = policy.unclassifiedGpuPods;
  if (u.classIndex < policy.classes.size() && policy.classes[u.classIndex].name == u.className)
    return &policy.classes[u.classIndex];
  return policy.findClass(u.className);
}

std::string classNames(const policy::PolicySet& policy) {
  std::vector<std::string> names;
  for (const auto& c : policy.classes)
    if (c.gpus.request != policy::GpuRequest::Forbidden) names.push_back(c.name);
  return names.empty() ? std::string("none") : text::join(names);
}

// `container "main" asks for 2 nvidia.com/gpu`, naming the first container that wants a GPU.
std::string gpuAsk(const PodGpu& gpu) {
  for (const auto& c : gpu.containers) {
    if (!c.wantsGpu()) continue;
    for (const auto& e : c.gpus)
      if (e.wantsGpu())
        return containerLabel(c) + " asks for " +
               (e.invalid ? "GPUs" : std::to_string(e.units()) + " " + std::string(e.resource));
    if (std::string claimed = describeClaimedGpus(gpu.claims); !claimed.empty()) return claimed;
    return containerLabel(c) + " claims devices (resources.claims)";
  }
  if (std::string claimed = describeClaimedGpus(gpu.claims); !claimed.empty()) return claimed;
  return "claims devices (spec.resourceClaims)";
}

std::string unclassifiedMessage(const PodView& pod, const PodGpu& gpu, const Scope& s) {
  const std::string labels =
      gpuClassLabels({s.policy, s.namespaceName, s.context.namespaceLabels, nullptr},
                     [](const policy::WorkloadClass&) { return true; });
  const std::string head = pod.subject + " " + gpuAsk(gpu) +
                           " but matches no GPU class of policy " + text::quoted(s.policy.name) +
                           ": ";
  if (labels.empty())
    return head + "ask the platform team which of the classes (" + classNames(s.policy) +
           ") fits and how to select it";
  return head + "add the label " + labels + " to the " + (pod.isTemplate ? "pod template" : "pod") +
         ", or ask the platform team which class fits";
}

// The placement guards, with the pools the pod's class writes or requires for it: `gpuPools`
// (the class's, resolved once per pod) for a GPU pod, its CPU pools for a pod without GPUs it
// places, none for a pod no class places.
void guardPlacement(const PodView& pod, const PodGpu& gpu, const policy::WorkloadClass* cls,
                    const PoolList& gpuPools, const policy::PolicySet& policy, Violations& out) {
  if (!policy.fieldGuards.guardsPlacement()) return;
  if (cls == nullptr) return checkPlacementGuards(pod, {}, policy, out);
  if (gpu.hasGpu) return checkPlacementGuards(pod, poolSpan(gpuPools), policy, out);
  const auto cpuPools = placesCpuPods(*cls) ? cpuPoolsOf(*cls, policy) : PoolList();
  checkPlacementGuards(pod, poolSpan(cpuPools), policy, out);
}

// A denial in enforce mode is coming: mutating the object would be pointless.
bool deniedInEnforceMode(const Decision& d) {
  return d.mode == policy::Mode::Enforce &&
         std::any_of(d.violations.begin(), d.violations.end(),
                     [](const Violation& v) { return !v.advisory; });
}

// A workload template whose controller keeps its pods running (Deployment...) cannot carry
// activeDeadlineSeconds: the apiserver refuses it there.
bool deadlineAllowed(const PodView& pod, const Scope& s) {
  if (!pod.isTemplate) return true;
  const auto* kind = findBuiltinWorkloadKind(s.context.group, s.kind);
  return kind == nullptr || !kind->keepsPodsRunning;
}

// A pod no class takes, judged by the rules of scope allPods (when the policy has any).
void judgeByAllPodsRules(const PodView& pod, const PodGpu& gpu, const Scope& s, Evaluation& ev,
                         Violations& violations) {
  if (!s.policy.allPodsJudged) return;
  static const PoolList kNoPools;
  const ValidationInput vin{pod,
                            gpu,
                            s.policy,
                            s.policy.allPodsRules,
                            kNoPools,
                            s.namespaceName,
                            s.context.namespaceLabels,
                            {},
                            {},
                            ev.validateOnly};
  validateAllPodsRules(vin, violations);
  ev.allPodsRules = true;
}

// Classification, skip rules and validation shared by pods and pod templates; why, in words, is
// appended to `reason` (a pod's is the Decision's own string, which keeps its memory).
Evaluation evaluate(const PodView& pod, const PodGpu& gpu, const Scope& s, Violations& violations,
                    std::string& reason) {
  Evaluation ev;
  const MatchInput in{pod, gpu, s.namespaceName, s.context.namespaceLabels};
  if (const policy::SkipRule* skip = findSkipRule(in, s.policy)) {
    const bool skips = skip->action == policy::SkipRule::Action::Skip;
    reason.append(skips ? "skip rule " : "validate only, skip rule ").append(skip->name);
    reason.append(" (");
    appendRuleDescription(reason, skip->match, in);
    reason.append(skips ? ")" : "); ");
    if (skips) {
      ev.outcome = Outcome::Skipped;
      return ev;
    }
    ev.validateOnly = true;
  }
  checkVisibleDevicesEnv(pod, gpu, s.policy, violations);
  validateClaims(pod, gpu, s.policy, violations);
  const std::size_t ruleStart = reason.size();
  std::size_t ruleBytes = 0;
  const policy::WorkloadClass* cls = classifyInto(in, s.policy, reason, ruleBytes);
  if (cls == nullptr && gpu.hasGpu) {
    using Action = policy::UnclassifiedGpuPods::Action;
    if (s.policy.unclassifiedGpuPods.action != Action::AssignClass)
      guardPlacement(pod, gpu, nullptr, ev.pools, s.policy, violations);
    switch (s.policy.unclassifiedGpuPods.action) {
      case Action::Deny:
        ev.outcome = Outcome::Unclassified;
        reason += "GPU pod matched no class; unclassified GPU pods are denied";
        violations.push_back({rules::kUnclassifiedGpuPod, unclassifiedMessage(pod, gpu, s)});
        return ev;
      case Action::Allow:
        ev.outcome = Outcome::Unclassified;
        reason += "GPU pod matched no class; unclassified GPU pods are allowed";
        judgeByAllPodsRules(pod, gpu, s, ev, violations);
        return ev;
      case Action::AssignClass:
        cls = assignedClass(s.policy);
        reason.append("no class matched; unclassifiedGpuPods assigns class ")
            .append(s.policy.unclassifiedGpuPods.className);
        break;
    }
  }
  if (cls != nullptr) ev.pools = gpuPoolsOf(*cls, s.policy);
  guardPlacement(pod, gpu, cls, ev.pools, s.policy, violations);
  if (cls == nullptr) {
    ev.outcome = Outcome::NoGpu;
    reason += "no GPU request and no class matched";
    validatePoolTargeting(pod, gpu, s.policy, violations, &s.supply);
    judgeByAllPodsRules(pod, gpu, s, ev, violations);
    return ev;
  }
  ev.outcome = Outcome::Classified;
  ev.cls = cls;
  // A class that requires the resource name never rewrites it (require never mutates).
  const bool rewrites = !ev.validateOnly && cls->effects.resourceName == policy::EffectMode::Mutate;
  ev.rewriteTo = rewrites ? gpuRewriteTarget(*cls, gpu, pod.isTemplate) : std::string_view();
  // What selected the class: the start of its reason (empty when unclassifiedGpuPods assigned
  // it). A view into `reason`, which nothing appends to while validation reads it.
  const std::string_view matchedBy = std::string_view(reason).substr(ruleStart, ruleBytes);
  const ValidationInput vin{pod,
                            gpu,
                            s.policy,
                            *cls,
                            ev.pools,
                            s.namespaceName,
                            s.context.namespaceLabels,
                            ev.rewriteTo,
                            matchedBy,
                            ev.validateOnly};
  validateClass(vin, violations);
  validateClassWorkloadRules(vin, violations);
  // Only pods whose affinity the mutation narrows to the pools can conflict with them. With
  // placement via nodeSelector, node-selector-conflict (validateClassWorkloadRules) judges the
  // pod's nodeSelector against the pool by placement.onConflict instead.
  if (gpu.hasGpu && !ev.validateOnly && cls->placement.via == policy::Placement::Via::NodeAffinity)
    ev.placementConflict = checkPlacementConflict({pod, *cls, ev.pools, &s.supply}, violations);
  if (cls->gpus.request == policy::GpuRequest::Forbidden)
    validatePoolTargeting(pod, gpu, s.policy, violations, &s.supply);
  return ev;
}

void mutate(const PodView& pod, const PodGpu& gpu, const Scope& s, Evaluation& ev, Decision& d) {
  MutationContext ctx{pod,
                      gpu,
                      s.policy,
                      *ev.cls,
                      gpu.hasGpu ? std::move(ev.pools) : cpuPoolsOf(*ev.cls, s.policy),
                      ev.rewriteTo};
  MutationOutput out{d.patch, d.changes};
  d.patch.reserve(16);
  d.changes.reserve(8);  // one per mutation kind, usually fewer: no regrowth
  // Placement, priority tier, runtime class and deadline belong to the class's GPUs: a CPU pod
  // of a class whose GPUs are optional (a CPU notebook) only gets the class annotation, and is
  // never steered onto GPU nodes (see gpu-pool-without-request). A class that places its CPU
  // pods (forbidden GPUs, or cpuPools) gives them the CPU pools' placement and its priority.
  // An effect in require mode is checked in validation and never written here.
  using policy::EffectMode;
  // Container defaults follow the containers rules' scope, GPU or not, like their validation.
  const bool defaults = ev.cls->effects.resourceRequests == EffectMode::Mutate &&
                        inRuleScope(ev.cls->containers.appliesTo, *ev.cls, gpu);
  if (gpu.hasGpu) {
    const policy::Effects& fx = ev.cls->effects;
    if (fx.resourceName == EffectMode::Mutate) mutateResources(ctx, out);
    if (defaults) mutateResourceRequests(ctx, out);
    // A pod admitted despite a placement conflict (warn, audit) keeps its own placement:
    // ANDing the pool in would make every term unsatisfiable, a pod that can never schedule.
    if (fx.nodePlacement == EffectMode::Mutate && !ev.placementConflict) mutatePlacement(ctx, out);
    if (fx.toleration == EffectMode::Mutate) mutateTolerations(ctx, out);
    if (fx.priorityClass == EffectMode::Mutate) mutatePriority(ctx, out);
    if (fx.runtimeClass == EffectMode::Mutate) mutateRuntimeClass(ctx, out);
    if (deadlineAllowed(pod, s)) mutateDeadline(ctx, out);
    mutateSidecarEnv(ctx, out);
  } else if (defaults) {
    mutateResourceRequests(ctx, out);
  }
  if (!gpu.hasGpu && placesCpuPods(*ev.cls)) {
    mutatePlacement(ctx, out);
    mutateTolerations(ctx, out);
    mutatePriority(ctx, out);
    mutateRuntimeClass(ctx, out);
  }
  // A template carries no decision annotations: the policy revision in a pod template would
  // roll every Deployment out on each policy edit. Its pods get them when they are created.
  if (!pod.isTemplate) mutateAnnotations(ctx, out);
}

// The container defaults of spec.containers (appliesTo: allPods) in a pod no class takes; no
// class annotation, since no class took it.
void mutateAllPodsDefaults(const PodView& pod, const PodGpu& gpu, const Scope& s, Decision& d) {
  const policy::WorkloadClass& rules = s.policy.allPodsRules;
  if (rules.effects.resourceRequests != policy::EffectMode::Mutate) return;
  MutationContext ctx{pod, gpu, s.policy, rules, {}, {}};
  MutationOutput out{d.patch, d.changes};
  mutateResourceRequests(ctx, out);
}

// What the pod reserves when admitted (none when no quota covers its namespace).
std::optional<QuotaCharge> chargeOf(const rapidjson::Value& object, const Scope& s,
                                    const GpuUnits& units) {
  auto quotas = quotasCovering(s.policy, s.namespaceName, s.context.namespaceLabels);
  if (quotas.empty() || units.empty()) return std::nullopt;
  const rapidjson::Value* metadata = json::objectMember(&object, "metadata");
  std::string_view name = json::stringMember(metadata, "name");
  if (name.empty()) name = json::stringMember(metadata, "generateName");
  std::map<std::string, int64_t> charged;
  for (const auto& [resource, n] : units) charged.emplace(resource, n);
  return QuotaCharge{std::move(quotas), std::move(charged), std::string(s.namespaceName),
                     std::string(json::stringMember(metadata, "uid")), std::string(name)};
}

// Offload mode: what the apiserver's compiled policies judge is theirs, not twice (one denial,
// one warning). A finding that read other objects the compiled policies cannot make stays.
void dropOffloadedViolations(const policy::PolicySet& policy, Violations& violations) {
  if (policy.offloadedRules.empty()) return;
  violations.eraseIf([&](const Violation& v) {
    return !v.readsOtherObjects && policy.offloadedRules.contains(v.rule);
  });
}

void judgePod(const PodView& pod, const rapidjson::Value& object, const Scope& s, Decision& d) {
  if (std::string why = policyExemption(pod, s.namespaceName, s.context.namespaceLabels, s.policy);
      !why.empty()) {
    d.outcome = Outcome::Exempt;
    d.reason = std::move(why);
    return;
  }
  // The Decision was cleared: the pod's findings go straight into its kept list.
  Violations& violations = d.violations;
  const bool shapeOk = checkPodShape(pod, violations);
  PodGpu gpu = analyzeGpu(pod, s.policy, &violations);
  attachClaims(gpu, resolveClaims(pod, s.namespaceName, s.usage.draObjects(), s.policy));
  Evaluation ev = evaluate(pod, gpu, s, violations, d.reason);
  d.outcome = ev.outcome;
  if (ev.outcome == Outcome::Skipped) {  // another system owns the pod: not even shape
    violations.clear();
    return;
  }
  if (ev.cls != nullptr) d.className = ev.cls->name;
  if (ev.cls != nullptr && !s.policy.priorityTiers.empty())
    d.priorityClass = effectivePriorityClass(pod, *ev.cls, s.policy,
                                             !ev.validateOnly && getsClassPlacement(*ev.cls, gpu));
  GpuUnits units;
  if (gpu.hasGpu) {
    // Quotas charge what the stored pod will hold: the class's rewrite only if our patch is
    // applied (a validating webhook's pod keeps nvidia.com/gpu when the mutation did not run).
    units = effectiveUnits(gpu, s.context.patchApplied ? ev.rewriteTo : std::string_view());
    for (const auto& [resource, n] : units)
      d.gpuEquivalents += gpuEquivalentsOf(resource, n, s.policy);
    d.quotaUnchecked =
        checkQuotas({pod.subject, s.namespaceName, s.context.namespaceLabels, s.policy, s.usage,
                     ev.cls, d.gpuEquivalents, units, gpu, pod.isTemplate},
                    d.violations, d.warnings);
    if (ev.cls != nullptr && !pod.isTemplate && !ev.validateOnly)
      checkCapacity({pod, gpu, s.policy, *ev.cls, ev.pools, ev.rewriteTo, s.supply}, d.violations,
                    d.warnings);
  }
  dropExemptViolations(pod, s.namespaceName, s.context.namespaceLabels, s.policy, d.violations);
  dropOffloadedViolations(s.policy, d.violations);
  const bool denied = deniedInEnforceMode(d);  // the findings are final from here on
  // Only an admitted pod reserves its charge (server/quota_reservation.cpp): one the verdict
  // will deny needs none.
  if (gpu.hasGpu && !pod.isTemplate && s.usage.available && !denied)
    d.quotaCharge = chargeOf(object, s, units);
  // Mutating an ill-typed pod would mean guessing; mutating a pod we deny is pointless.
  if (ev.validateOnly || !shapeOk || denied) return;
  if (ev.cls != nullptr) mutate(pod, gpu, s, ev, d);
  if (ev.allPodsRules) mutateAllPodsDefaults(pod, gpu, s, d);
}

void decidePod(const rapidjson::Value& object, const Scope& s, Decision& d) {
  // The subject's memory is the kept Decision's, lent to the view and given back holding the
  // pod's name: a warm request names its pod without allocating.
  PodView pod = podViewOf(object, std::move(d.subject));
  judgePod(pod, object, s, d);
  d.subject = std::move(pod.subject);
}

// The template's own mutations, with paths under its place in the workload; `changes` name it.
void mutateTemplate(const PodView& pod, const PodGpu& gpu, const Scope& s, Evaluation& ev,
                    const PodTemplateRef& t, Patch& patch, TextList& changes) {
  Decision own;
  if (ev.cls != nullptr) mutate(pod, gpu, s, ev, own);
  if (ev.cls == nullptr && ev.allPodsRules) mutateAllPodsDefaults(pod, gpu, s, own);
  for (auto& op : own.patch) {
    op.path.insert(0, t.pointer);
    patch.push_back(std::move(op));
  }
  for (auto& c : own.changes) changes.push_back(text::oneLine(t.path, 80) + ": " + c);
}

// A workload's pod templates: validated on CREATE like the pods they become and, for the kinds
// of spec.mutateTemplates, mutated like them (on UPDATE only mutated: an update is never denied
// here, its pods are judged when they are created).
void decideWorkload(const rapidjson::Value& object, std::vector<PodTemplateRef>& templates,
                    const Scope& s, bool mutates, bool update, Decision& d) {
  const rapidjson::Value* metadata = json::objectMember(&object, "metadata");
  std::string_view name = json::stringMember(metadata, "name");
  if (name.empty()) name = json::stringMember(metadata, "generateName");
  d.outcome = Outcome::NoGpu;
  d.reason = templates.empty() ? "no pod template found" : "";
  Patch patch;
  TextList changes;
  for (auto& t : templates) {
    const PodView pod =
        templateViewOf(*t.tmpl, s.context.kind, name, t.path, std::move(t.controllerLabels));
    Violations violations;
    const bool shapeOk = checkPodShape(pod, violations);
    PodGpu gpu = analyzeGpu(pod, s.policy, &violations);
    attachClaims(gpu, resolveClaims(pod, s.namespaceName, s.usage.draObjects(), s.policy));
    std::string reason;
    Evaluation ev = evaluate(pod, gpu, s, violations, reason);
    dropExemptViolations(pod, s.namespaceName, s.context.namespaceLabels, s.policy, violations);
    const bool exempt =
        !policyExemption(pod, s.namespaceName, s.context.namespaceLabels, s.policy).empty();
    if (exempt) violations.clear();  // a template of exempt images is judged like its exempt pods
    if (mutates && !exempt && shapeOk && (ev.cls != nullptr || ev.allPodsRules) && !ev.validateOnly)
      mutateTemplate(pod, gpu, s, ev, t, patch, changes);
    if (ev.outcome != Outcome::Skipped && !update)
      for (auto& v : violations) d.violations.push_back(std::move(v));
    if (!d.reason.empty()) d.reason += "; ";
    d.reason += text::oneLine(t.path, 120) + ": " + reason;
    // The most telling outcome wins: a class beats an unclassified GPU pod beats the rest.
    if (ev.outcome == Outcome::Classified && d.outcome != Outcome::Classified) {
      d.outcome = Outcome::Classified;
      d.className = ev.cls->name;
    } else if (ev.outcome == Outcome::Unclassified && d.outcome != Outcome::Classified) {
      d.outcome = Outcome::Unclassified;
    } else if (ev.outcome == Outcome::Skipped && d.outcome == Outcome::NoGpu) {
      d.outcome = Outcome::Skipped;
    }
  }
  // As for pods: a workload denied in enforce mode is not mutated.
  if (deniedInEnforceMode(d)) return;
  d.patch = std::move(patch);
  d.changes = std::move(changes);
}

std::string_view namespaceOf(const rapidjson::Value& object, const RequestContext& context) {
  if (!context.namespaceName.empty()) return context.namespaceName;
  return json::stringMember(json::objectMember(&object, "metadata"), "namespace");
}

void decideImpl(const rapidjson::Value& object, const RequestContext& context,
                const policy::PolicySet& policy, const UsageSnapshot& usage,
                const SupplySnapshot& supply, Decision& d) {
  // An empty kind (a caller that did not say) falls back to the object's own kind.
  const std::string_view kind =
      context.kind.empty() ? json::stringMember(&object, "kind") : std::string_view(context.kind);
  const bool isPod = context.group.empty() && kind == "Pod";
  const bool mutates = !isPod && policy.mutatesTemplates(context.group, kind);
  const bool update = context.operation == "UPDATE" && mutates;
  if (context.operation != "CREATE" && !update) {
    d.reason = "operation " + text::oneLine(context.operation, 20) + " is not checked";
    return;
  }
  std::optional<std::vector<PodTemplateRef>> templates;
  if (!isPod) {
    templates = findPodTemplates(object, context.group, context.kind, policy);
    if (!templates) {
      d.reason = "kind " + text::oneLine(context.kind, 60) + " has no pod templates to check";
      return;
    }
  }
  const std::string_view ns = namespaceOf(object, context);
  if (policy.exemptNamespaces.covers(ns, context.namespaceLabels)) {
    d.outcome = Outcome::Exempt;
    d.reason = "namespace " + text::quoted(ns) + " is exempt";
    return;
  }
  d.mode = rolloutMode(policy, ns, context.namespaceLabels);
  const Scope scope{context, policy, usage, ns, supply, kind};
  if (isPod) {
    decidePod(object, scope, d);
  } else {
    decideWorkload(object, *templates, scope, mutates, update, d);
  }
  applyVerdict(d);
}

}  // namespace

const SupplySnapshot& noSupply() {
  static const SupplySnapshot none = [] {
    SupplySnapshot s;
    s.unavailableReason = "no node source";
    return s;
  }();
  return none;
}

Decision decide(const rapidjson::Value& object, const RequestContext& context,
                const policy::PolicySet& policy, const UsageSnapshot& usage) {
  return decide(object, context, policy, usage, noSupply());
}

Decision decide(const rapidjson::Value& object, const RequestContext& context,
                const policy::PolicySet& policy, const UsageSnapshot& usage,
                const SupplySnapshot& supply) {
  Decision d;
  decide(object, context, policy, usage, supply, d);
  return d;
}

void decide(const rapidjson::Value& object, const RequestContext& context,
            const policy::PolicySet& policy, const UsageSnapshot& usage,
            const SupplySnapshot& supply, Decision& d) {
  d.clear();
  try {
    decideImpl(object, context, policy, usage, supply, d);
  } catch (const std::bad_alloc&) {
    throw;
  } catch (const std::exception& e) {
    // A bug, not the pod's fault; still an answer rather than a crash of the server.
    d.clear();
    d.reason = "internal error";
    d.violations.push_back({"internal-error", "gpu-admission could not evaluate the pod (" +
                                                  text::oneLine(e.what(), 200) +
                                                  "): tell the platform team"});
    applyVerdict(d);
  }
}

}  // namespace gpua::engine
