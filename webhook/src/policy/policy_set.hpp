// The validated, immutable policy model. The loader (policy/loader.hpp) builds it from YAML and
// resolves every cross-reference up front, so the engine never has to look anything up by name
// or second-guess a field: if a PolicySet exists, it is consistent.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "policy/container_rules.hpp"
#include "policy/namespace_exemption.hpp"
#include "policy/namespace_selector.hpp"
#include "policy/node_requirement.hpp"
#include "policy/workload_rules.hpp"

namespace gpua::policy {

// How a pool's GPUs are handed out.
enum class Sharing { Exclusive, Mig, TimeSlicing, Mps };

// What happens when a rule is violated.
//   Enforce: deny.  Warn: admit with a warning.  Audit: admit silently, record in audit
//   annotations.  Observe: change nothing at all (no patch, no warning, no denial, not even a
//   quota-unavailable one) and only record what the policy would do: the first stage of a
//   rollout, before pools and classes are known to fit the cluster.
enum class Mode { Enforce, Warn, Audit, Observe };

// "enforce", "warn", "audit", "observe": the words of the policy, logs and metrics.
const char* modeName(Mode m);

// How a class's effect reaches its pods. Mutate: the webhook writes it (the default). Require:
// the webhook never writes it and refuses a pod that lacks or contradicts it, naming the exact
// fix (for GitOps, where a corrected manifest must land in git, not only in the cluster).
enum class EffectMode { Mutate, Require };

// One mode per effect a class has on its pods.
struct Effects {
  EffectMode toleration = EffectMode::Mutate;     // the pools' taints tolerated
  EffectMode nodePlacement = EffectMode::Mutate;  // the pools' node selection
  EffectMode priorityClass = EffectMode::Mutate;  // the class's priorityClassName
  EffectMode runtimeClass = EffectMode::Mutate;   // the pools' runtimeClassName
  EffectMode resourceName = EffectMode::Mutate;   // nvidia.com/gpu -> the class's resource
  // containers.defaultRequestsPerGpu: cpu/memory requests written where a GPU container has none
  EffectMode resourceRequests = EffectMode::Mutate;
};
// What a capacity finding (no-capacity, gpu-stranding: checks that need node data) may do.
//   Deny: a violation like any other, which the rollout mode turns into deny/warn/audit.
//   Warn: never denies; in enforce namespaces it becomes a warning (warn and audit as usual).
//   Off:  not checked.
enum class CapacityCheck { Deny, Warn, Off };

// A node taint of a pool; the engine adds a matching toleration. An empty `value` is tolerated
// with operator Exists, otherwise with operator Equal.
struct Taint {
  std::string key;
  std::string value;
  std::string effect;  // NoSchedule | PreferNoSchedule | NoExecute, or empty (= any effect)
};

// A GPU node pool.
struct Pool {
  std::string name;
  std::string
      gpu;  // key into the built-in GPU model table (policy/gpu_models.hpp), e.g. "H100-80GB"
  Sharing sharing = Sharing::Exclusive;
  std::vector<std::string> migProfiles;  // sharing == Mig: the profiles the pool's nodes expose
  int replicas = 1;                      // sharing == TimeSlicing | Mps: replicas per GPU
  // The extended resource this pool's GPUs are advertised under when not MIG:
  // "nvidia.com/gpu" (default) or e.g. "nvidia.com/gpu.shared" (renameByDefault: true).
  std::string resource = "nvidia.com/gpu";
  std::map<std::string, std::string> nodeSelector;  // ANDed into required node affinity (In)
  std::vector<Taint> taints;
  std::optional<std::string> runtimeClassName;  // set on the pod when absent
  // Requirements beyond nodeSelector's equality (NotIn, Exists, DoesNotExist, Gt, Lt, In with
  // several values), ANDed with it.
  NodeRequirements matchExpressions;
  bool cpuOnly = false;  // a pool of spec.cpuPools: no GPUs, for classes' pods without GPUs

  bool selectsNodes() const { return !nodeSelector.empty() || !matchExpressions.empty(); }
  // The pool's whole node selection: nodeSelector entries as `In [v]`, then matchExpressions,
  // as views (the request path copies nothing).
  template <typename F>
  void forEachRequirement(F&& f) const {
    for (const auto& [k, v] : nodeSelector) f(NodeRequirementRef{k, NodeOperator::In, {&v, 1}});
    for (const auto& r : matchExpressions) f(NodeRequirementRef{r.key, r.op, r.values});
  }
  NodeRequirements requirements() const {
    NodeRequirements out;
    forEachRequirement([&](const NodeRequirementRef& r) {
      out.push_back({std::string(r.key), r.op, {r.values.begin(), r.values.end()}});
    });
    return out;
  }
  // gpu-stranding: a pod may take at most this multiple of a node's CPU and memory per GPU
  // unit (1.5 = half again its share). Unset = no stranding check for this pool unless the
  // class sets one.
  std::optional<double> maxShareOfNodePerGpu;
};

// One matching rule; every field that is set must hold (AND). An empty rule is rejected by the
// loader ("empty matcher").
struct MatchRule {
  std::map<std::string, std::string> labels;       // pod label key == value
  std::vector<std::string> labelKeys;              // pod has the label key (any value)
  std::map<std::string, std::string> annotations;  // pod annotation key == value
  std::vector<std::string> annotationKeys;         // pod has the annotation key
  std::optional<NamespaceSelector> namespaces;     // the pod's namespace (name and labels)
  std::vector<std::string> ownerKinds;             // any ownerReferences[].kind equals one of these
  std::vector<std::string> schedulerNames;  // spec.schedulerName (unset = "default-scheduler")
  // Any container/initContainer requests or limits key equals one of these; a trailing '*' makes
  // the entry a prefix ("nvidia.com/gpumem*").
  std::vector<std::string> resources;
  // Any container/initContainer image matches one of these image patterns
  // (engine/pod/image_match.hpp).
  std::vector<std::string> images;
  // Some request of one of the pod's DRA claims (resolved from the claim or its template) names
  // one of these DeviceClasses (any firstAvailable alternative counts).
  std::vector<std::string> deviceClasses;

  bool empty() const {
    return labels.empty() && labelKeys.empty() && annotations.empty() && annotationKeys.empty() &&
           !namespaces && ownerKinds.empty() && schedulerNames.empty() && resources.empty() &&
           images.empty() && deviceClasses.empty();
  }
};

// A class's `match`: true when any rule of `any` holds (or `any` is empty) and every rule of
// `all` holds. The loader guarantees at least one rule overall.
struct Matcher {
  std::vector<MatchRule> any;
  std::vector<MatchRule> all;
};

// Whether pods of a class must, may or must not ask for GPUs.
enum class GpuRequest { Required, Optional, Forbidden };

struct GpuSizing {
  GpuRequest request = GpuRequest::Required;
  std::optional<int64_t> maxPerPod;        // in units of the class's resource
  std::optional<int64_t> maxPerContainer;  // in units of the class's resource
  std::optional<std::string> migProfile;   // e.g. "2g.20gb"; implies MIG pools
  // The DRA device classes (of spec.dra.deviceClasses) the class's pods may claim GPUs from.
  // Empty = any of them.
  std::vector<std::string> deviceClasses;
};

struct WorkloadClass {
  std::string name;
  Matcher match;
  // Namespaces allowed to use this class. A pod that matches the class from another namespace
  // is denied (the label is a hint a user can set; policy decides who may use it).
  std::optional<NamespaceSelector> allowedNamespaces;
  std::vector<std::string> pools;  // pool names, all present in PolicySet::pools (loader-checked)
  std::optional<std::string> priorityClassName;
  bool overridePriorityClass = false;  // replace a user-chosen priorityClassName
  // Priority classes a user may name on pods of this class (besides priorityClassName and the
  // global default). Empty = any class not starting with "system-".
  std::vector<std::string> allowedPriorityClasses;
  GpuSizing gpus;
  std::optional<int64_t> maxRunSeconds;  // -> spec.activeDeadlineSeconds (set or lowered)
  // CPU pools (PolicySet::cpuPools) for the class's pods without GPUs; only forbidden or
  // optional classes. With them (or with gpus.request: forbidden) CPU pods get placement,
  // tolerations and the priority class too.
  std::vector<std::string> cpuPools;
  Placement placement;
  std::optional<CheckpointRule> requireCheckpoint;
  std::optional<CapacityCheck> capacityCheck;  // unset = PolicySet::capacityCheck
  std::optional<double> maxShareOfNodePerGpu;  // wins over the pool's (see Pool)
  // Runtime classes a user may name on GPU pods of this class besides the pools' own. Empty =
  // any (in mutate mode); in require mode only the pools' class and these.
  std::vector<std::string> allowedRuntimeClasses;
  bool requirePriorityClass = false;          // a pod in scope must end up with a priority class
  std::vector<RequiredLabel> requiredLabels;  // a pod in scope must carry these labels
  // The pods requirePriorityClass, requiredLabels, allowedPriorityClasses and allowedRuntimeClasses
  // judge, and the default scope of the class's containers rules.
  RuleScope appliesTo = RuleScope::PlacedPods;
  // Resolved by the loader: the class's `effects`, written per effect, over spec.effects.
  Effects effects;
  // Resolved by the loader: the class's `containers` over spec.containers, key by key; its
  // appliesTo: the class's containers.appliesTo, else the class's appliesTo, else
  // spec.containers.appliesTo.
  ContainerRules containers;

  // ---- resolved by the loader ----
  // The extended resource the class's GPU requests are rewritten to: "nvidia.com/gpu",
  // "nvidia.com/mig-2g.20gb", "nvidia.com/gpu.shared"... Empty when gpus.request == Forbidden.
  std::string resolvedResource;
  // GPU-equivalents one unit of resolvedResource is worth (1, 2/7, 1/4...).
  double gpuEquivalentPerUnit = 1.0;
  // True when the resolved resource is a time-slice/MPS unit: more than one per container buys
  // no compute and is denied.
  bool sharedResource = false;
};

// What to do with a GPU pod that matches no class.
struct UnclassifiedGpuPods {
  enum class Action { Deny, Allow, AssignClass } action = Action::Deny;
  std::string className;       // Action::AssignClass
  std::size_t classIndex = 0;  // resolved index into PolicySet::classes
};

// Pods other systems own (Kueue, HAMi, another scheduler...).
struct SkipRule {
  std::string name;
  MatchRule match;
  enum class Action { Skip, ValidateOnly } action = Action::Skip;
};

struct Quota {
  std::string name;
  NamespaceSelector namespaces;
  // Shared: one budget for all matching namespaces together (a team).
  // PerNamespace: each matching namespace has its own budget of this size.
  enum class Scope { Shared, PerNamespace } scope = Scope::Shared;
  std::optional<double> gpuEquivalents;  // total across all GPU resources
  // Both looked up by a string_view on the request path (std::less<>: no key copy).
  std::map<std::string, double, std::less<>> perClass;      // class name -> GPU-equivalents
  std::map<std::string, int64_t, std::less<>> perResource;  // resource -> units (nvidia.com/gpu: 8)
};

struct RolloutRule {
  std::optional<NamespaceSelector> namespaces;  // absent = every namespace (a catch-all)
  Mode mode = Mode::Enforce;
};

// A custom resource kind whose embedded pod templates the engine validates at `kubectl apply`.
// Paths are dot-separated object keys from the object root; '*' matches every key of a map or
// every element of an array. E.g. "spec.pytorchReplicaSpecs.*.template".
struct TemplateKind {
  std::string apiGroup;  // "kubeflow.org"; "" for core, "apps", "batch" as in Kubernetes
  std::string kind;      // "PyTorchJob"
  std::vector<std::string> templatePaths;
  // Labels the kind's controller puts on every pod it creates from these templates (the
  // training operator's training.kubeflow.org/job-name, KubeRay's ray.io/node-type...), so a
  // template is classified like the pods it will become. Values may use $(name) (the object's
  // metadata.name) and $(replica) (the key or index the path's first '*' matched, lower-cased,
  // as the training operator writes replica-type). They win over the template's own labels,
  // as the controllers' do.
  std::map<std::string, std::string> podLabels;
  // Extra labels for the templates of one path (a key of this map is one of templatePaths):
  // KubeRay labels head and worker pods differently. Added on top of podLabels.
  std::map<std::string, std::map<std::string, std::string>> podLabelsByPath;
};

// A workload kind by API group ("" = core) and kind.
struct KindRef {
  std::string group;
  std::string kind;
};

// Pods exempt from some rules (or from the whole policy) by their container images, their
// namespace, or both: the pod is exempt when it is in `namespaces` and every container and init
// container runs an image matching one of `images`.
struct RuleExemption {
  std::vector<std::string> rules;   // violation rule ids; empty = every rule (the whole policy)
  std::vector<std::string> images;  // image patterns (engine/pod/image_match.hpp); empty = any
                                    // images (then `namespaces` is set)
  std::optional<NamespaceSelector> namespaces;  // absent = every namespace
};

// Allowed values for the pods of the matching namespaces (the classified pods `appliesTo`
// selects), on top of the class's own: e.g. a team's namespaces may use only the low training
// tier.
struct NamespaceRule {
  NamespaceSelector namespaces;
  RuleScope appliesTo = RuleScope::PlacedPods;
  std::vector<std::string> priorityClassNames;  // empty = no restriction
  std::vector<std::string> runtimeClassNames;   // empty = no restriction
  bool requirePriorityClass = false;
  std::vector<RequiredLabel> requiredLabels;
};

// A DRA DeviceClass whose devices are GPUs (spec.dra.deviceClasses), and the extended resource
// one of its devices counts as: device-plugin GPUs and DRA GPUs are one ledger (quotas,
// GPU-equivalents, maxPerPod), and a MIG device counts as the MIG resource of its profile.
struct DraDeviceClass {
  std::string name;      // the DeviceClass's metadata.name, e.g. "gpu.nvidia.com"
  std::string countsAs;  // "nvidia.com/gpu", or with the profile: "nvidia.com/mig-{profile}"
  // The device attribute holding the MIG profile, qualified by its domain; read from the
  // allocated device (ResourceSlice) or the request's selectors. Used when countsAs has
  // {profile}.
  std::string profileAttribute = "gpu.nvidia.com/profile";

  bool countsByProfile() const { return countsAs.find("{profile}") != std::string::npos; }
  // The resource one device of `profile` counts as (countsAs itself when not by profile).
  std::string resourceFor(std::string_view profile) const {
    std::string r = countsAs;
    if (const auto at = r.find("{profile}"); at != std::string::npos) r.replace(at, 9, profile);
    return r;
  }
};

// A pod claim whose ResourceClaim or ResourceClaimTemplate the webhook does not know (yet).
enum class UnresolvedClaims { Warn, Deny };

// spec.dra: how pods that get GPUs through Dynamic Resource Allocation claims are counted.
// Without it (declared false) every claim makes a pod a GPU pod of unknown size, as before.
struct DraPolicy {
  bool declared = false;
  std::vector<DraDeviceClass> deviceClasses;
  UnresolvedClaims unresolvedClaims = UnresolvedClaims::Warn;

  const DraDeviceClass* find(std::string_view className) const {
    for (const auto& c : deviceClasses)
      if (c.name == className) return &c;
    return nullptr;
  }
};

// When live usage is unavailable (API server unreachable, not synced yet).
enum class QuotaUnavailable { FailOpen, FailClosed };

struct PolicySet {
  std::string name;      // metadata.name of the first file's GpuPolicy (or joined names)
  std::string revision;  // content hash of all loaded files, stable for identical inputs
  std::vector<std::string> sourceFiles;

  NamespaceExemption exemptNamespaces;  // a listed name or matching labels; empty = none
  bool hasExemptions = false;
  std::vector<Pool> pools;
  std::vector<WorkloadClass> classes;  // in order: first match wins
  UnclassifiedGpuPods unclassifiedGpuPods;
  std::vector<SkipRule> skip;
  std::vector<Quota> quotas;
  std::vector<RolloutRule> rollout;  // first match wins; no match = Enforce
  // A document has a `rollout` key (even an empty list): without one every namespace is
  // enforced, which a reload only accepts when it is written (see server/reloader).
  bool rolloutDeclared = false;
  std::vector<TemplateKind> templateKinds;
  // spec.mutateTemplates: workload kinds (built-in or of templateKinds) whose pod templates get
  // the same mutations as their pods, on CREATE and UPDATE. Empty: templates are only validated.
  std::vector<KindRef> mutatedTemplateKinds;
  // The cluster's globalDefault PriorityClass name: a pod carrying it did not choose it.
  std::optional<std::string> globalDefaultPriorityClass;
  QuotaUnavailable quotaUnavailable = QuotaUnavailable::FailOpen;
  std::vector<Pool> cpuPools;  // nodes without GPUs, named by classes' cpuPools
  FieldGuards fieldGuards;
  std::vector<PriorityTier> priorityTiers;  // the cluster's priority classes, for review/checks
  Effects defaultEffects;  // spec.effects: the cluster default each class starts from
  // spec.exempt.images: pods whose every container runs one of these are exempt, like an
  // exempt namespace (Gatekeeper's exemptImages).
  std::vector<std::string> exemptImages;
  std::vector<RuleExemption> ruleExemptions;  // spec.ruleExemptions, in order
  // Not from the policy's files: the rules the apiserver's compiled policies enforce in its
  // place (`serve --native-offload`, docs/native-backstop.md), which the engine then leaves out
  // of a pod's decision unless a finding read other objects.
  std::set<std::string, std::less<>> offloadedRules;
  std::vector<NamespaceRule> namespaceRules;  // spec.namespaceRules: every matching rule applies
  // The rules of scope allPods, for the pods no class takes: a class without a name, pools or
  // GPU rules whose containers are spec.containers when its appliesTo is allPods (else none)
  // and whose effects are spec.effects; the namespace rules of that scope judge with it.
  // Resolved by the loader; `allPodsJudged` is false when nothing has that scope.
  WorkloadClass allPodsRules;
  bool allPodsJudged = false;
  CapacityCheck capacityCheck = CapacityCheck::Warn;  // the classes' default (spec.capacityCheck)
  DraPolicy dra;                                      // spec.dra

  bool mutatesTemplates(std::string_view group, std::string_view kind) const {
    for (const auto& k : mutatedTemplateKinds)
      if (k.group == group && k.kind == kind) return true;
    return false;
  }
  const Pool* findPool(std::string_view n) const {
    for (const auto& p : pools)
      if (p.name == n) return &p;
    return nullptr;
  }
  const Pool* findCpuPool(std::string_view n) const {
    for (const auto& p : cpuPools)
      if (p.name == n) return &p;
    return nullptr;
  }
  const PriorityTier* findTier(std::string_view n) const {
    for (const auto& t : priorityTiers)
      if (t.name == n) return &t;
    return nullptr;
  }
  const WorkloadClass* findClass(std::string_view n) const {
    for (const auto& c : classes)
      if (c.name == n) return &c;
    return nullptr;
  }
};

}  // namespace gpua::policy
