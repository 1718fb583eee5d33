#include "native/compile.hpp"

#include <algorithm>

#include "engine/classify/classify.hpp"
#include "native/cel_text.hpp"
#include "native/mutations_cel.hpp"
#include "native/pod_cel.hpp"
#include "native/rules_cel.hpp"
#include "native/yaml_out.hpp"
#include "policy/rule_ids.hpp"

namespace gpua::native {

namespace rules = policy::rules;

namespace {

constexpr const char* kPrefix = "gpu-admission-";

// The objects' names and files: through the API, or as static manifests (KEP-5793), whose
// names must end in .static.k8s.io and whose policies and bindings the apiserver reads from two
// directories, one per plugin.
struct Naming {
  Form form;
  std::string object(const std::string& what) const {
    return kPrefix + what + (form == Form::Static ? ".static.k8s.io" : "");
  }
  std::string file(const char* plugin, const std::string& name) const {
    return (form == Form::Static ? plugin + std::string("/") : std::string()) + plugin + "-" +
           name + ".yaml";
  }
};

// Why a rule the engine has is not compiled, when it never can be or need not be.
struct Fixed {
  const char* rule;
  const char* why;
};

constexpr Fixed kNeverCompiled[] = {
    {rules::kQuota,
     "reads other objects: the namespace's live GPU usage (ResourceQuota, "
     "`gpu-admission quotas render`, is the native backstop for quotas)"},
    {rules::kQuotaUnavailable, "reads other objects: whether live GPU usage is known"},
    {rules::kNoCapacity, "reads other objects: the pools' nodes (supply)"},
    {rules::kGpuStranding, "reads other objects: the pools' nodes (CPU and memory per GPU)"},
    {rules::kDraClaimUnresolved,
     "reads other objects: the ResourceClaims and ResourceClaimTemplates a pod's claims name"},
    {rules::kDeviceClassNotAllowed,
     "reads other objects: the device classes of the claims and templates a pod names"},
    {rules::kDraClaimSizeUnknown, "reads other objects: the claims, templates and DeviceClasses"},
    {rules::kInvalidPod,
     "the apiserver's own validation refuses an ill-typed pod before "
     "admission policies run"},
    {rules::kInvalidGpuQuantity,
     "the apiserver's own validation refuses a fractional extended "
     "resource before admission policies run"},
    {rules::kRequestsLimitsMismatch,
     "the apiserver's own validation refuses an extended "
     "resource whose request differs from its limit"},
};

const char* kNotYet =
    "per-object, so CEL can express it, but the compiler does not write it yet: the webhook "
    "alone enforces it";

std::vector<RuleReport> reports(bool compiled, const std::string& notCompilable) {
  std::vector<RuleReport> out;
  const auto& done = compiledRuleIds();
  for (const auto& id : policy::knownRuleIds()) {
    RuleReport r{id, false, "", kNotYet};
    for (const auto& f : kNeverCompiled)
      if (id == f.rule) r.why = f.why;
    if (std::find(done.begin(), done.end(), id) != done.end()) {
      if (compiled) {
        r.compiled = true;
        r.where = std::string("ValidatingAdmissionPolicy ") + kPrefix + "<mode>";
        r.why.clear();
      } else {
        r.why = notCompilable;
      }
    }
    out.push_back(std::move(r));
  }
  return out;
}

Yaml metadata(const std::string& name, const policy::PolicySet& p) {
  return std::move(
      Yaml::map()
          .set("name", name)
          .set("labels",
               std::move(Yaml::map().set(std::string(kManagedByLabel), std::string(kManagedBy))))
          .set("annotations",
               std::move(Yaml::map()
                             .set(std::string(engine::kPolicyAnnotation), p.name)
                             .set(std::string(engine::kPolicyRevisionAnnotation), p.revision))));
}

Yaml strings(std::initializer_list<const char*> items) {
  Yaml l = Yaml::list();
  for (const char* s : items) l.push(Yaml::str(s));
  return l;
}

// The message of the first violation, and how many more, as engine/verdict's denial says it.
constexpr const char* kFirstWithCount =
    "variables.violations[0] + (size(variables.violations) > 1 ? \" (and \" + "
    "string(size(variables.violations) - 1) + \" more)\" : \"\")";

Yaml expression(const std::string& key, const char* op, const std::vector<std::string>& values) {
  Yaml e = Yaml::map();
  e.set("key", key).set("operator", op);
  if (!values.empty()) {
    Yaml v = Yaml::list();
    for (const auto& x : values) v.push(Yaml::str(x));
    e.set("values", std::move(v));
  }
  return e;
}

// The exempt namespaces, left out before any CEL runs (as the webhook configurations leave them
// out), so that no error of a compiled expression can ever stop a pod of the control plane: the
// exempt names, and the exemption's label when it is one requirement a selector can negate.
// variables.exempt still decides; this only keeps the apiserver from evaluating.
Yaml exemptedNamespaces(const policy::PolicySet& p) {
  Yaml exprs = Yaml::list();
  const auto& ex = p.exemptNamespaces;
  if (!ex.names.empty()) exprs.push(expression("kubernetes.io/metadata.name", "NotIn", ex.names));
  const auto& sel = ex.labels;
  if (sel.matchLabels.size() == 1 && sel.matchExpressions.empty()) {
    const auto& [k, v] = *sel.matchLabels.begin();
    exprs.push(expression(k, "NotIn", {v}));
  } else if (sel.matchLabels.empty() && sel.matchExpressions.size() == 1) {
    const auto& r = sel.matchExpressions.front();
    switch (r.op) {
      case kube::SelectorOperator::In:
        exprs.push(expression(r.key, "NotIn", r.values));
        break;
      case kube::SelectorOperator::Exists:
        exprs.push(expression(r.key, "DoesNotExist", {}));
        break;
      default:  // NotIn and DoesNotExist negate to selectors that need an OR: CEL decides
        break;
    }
  }
  return std::move(Yaml::map().set("matchExpressions", std::move(exprs)));
}

// The variables of a policy, each bind lowered for the apiserver.
Yaml variablesYaml(const std::vector<CelVariable>& vars) {
  Yaml variables = Yaml::list();
  for (const auto& v : vars)
    variables.push(std::move(
        Yaml::map().set("name", v.name).set("expression", cel::lowerBinds(v.expression))));
  return variables;
}

// What every compiled policy matches: pod CREATE, outside the exempt namespaces.
Yaml podCreateConstraints(const policy::PolicySet& p) {
  Yaml rule = Yaml::map();
  rule.set("apiGroups", strings({""}))
      .set("apiVersions", strings({"v1"}))
      .set("operations", strings({"CREATE"}))
      .set("resources", strings({"pods"}));
  Yaml constraints = Yaml::map();
  if (!p.exemptNamespaces.empty()) constraints.set("namespaceSelector", exemptedNamespaces(p));
  constraints.set("resourceRules", std::move(Yaml::list().push(std::move(rule))));
  return constraints;
}

std::string policyYaml(const policy::PolicySet& p, const std::vector<CelVariable>& vars,
                       const char* mode, const Naming& names) {
  Yaml variables = variablesYaml(vars);
  Yaml validation = Yaml::map();
  validation
      .set("expression", std::string("variables.mode != \"") + mode +
                             "\" || variables.exempt || variables.skip == \"skip\" || "
                             "size(variables.violations) == 0")
      .set("messageExpression", kFirstWithCount)
      .set("reason", "Forbidden");
  Yaml spec = Yaml::map();
  // A backstop that admits on a CEL error is no backstop in enforce mode; warn and audit only
  // report, so an error there must not stop a pod.
  Yaml constraints = podCreateConstraints(p);
  spec.set("failurePolicy", std::string(mode) == "enforce" ? "Fail" : "Ignore")
      .set("matchConstraints", std::move(constraints))
      .set("variables", std::move(variables))
      .set("validations", std::move(Yaml::list().push(std::move(validation))));
  Yaml doc = Yaml::map();
  doc.set("apiVersion", "admissionregistration.k8s.io/v1")
      .set("kind", "ValidatingAdmissionPolicy")
      .set("metadata", metadata(names.object(mode), p))
      .set("spec", std::move(spec));
  return doc.render();
}

std::string bindingYaml(const policy::PolicySet& p, const char* mode, const char* action,
                        const Naming& names) {
  Yaml spec = Yaml::map();
  spec.set("policyName", names.object(mode))
      .set("validationActions", std::move(Yaml::list().push(Yaml::str(action))));
  Yaml doc = Yaml::map();
  doc.set("apiVersion", "admissionregistration.k8s.io/v1")
      .set("kind", "ValidatingAdmissionPolicyBinding")
      .set("metadata", metadata(names.object(mode), p))
      .set("spec", std::move(spec));
  return doc.render();
}

std::string mutatingYaml(const policy::PolicySet& p, std::vector<CelVariable> vars,
                         const CompiledMutation& m, const Naming& names) {
  vars.insert(vars.end(), m.variables.begin(), m.variables.end());
  Yaml variables = variablesYaml(vars);
  Yaml constraints = podCreateConstraints(p);
  Yaml mutation = Yaml::map();
  mutation.set("patchType", "JSONPatch")
      .set("jsonPatch", std::move(Yaml::map().set("expression", cel::lowerBinds(m.patch))));
  Yaml spec = Yaml::map();
  // A pod the policy cannot mutate is still admitted, as the webhook's mutating configuration
  // fails open; IfNeeded lets the webhook's own changes be seen by it again.
  spec.set("failurePolicy", "Ignore")
      .set("reinvocationPolicy", "IfNeeded")
      .set("matchConstraints", std::move(constraints))
      .set("variables", std::move(variables))
      .set("mutations", std::move(Yaml::list().push(std::move(mutation))));
  Yaml doc = Yaml::map();
  doc.set("apiVersion", "admissionregistration.k8s.io/v1")
      .set("kind", "MutatingAdmissionPolicy")
      .set("metadata", metadata(names.object(m.name), p))
      .set("spec", std::move(spec));
  return doc.render();
}

std::string mutatingBindingYaml(const policy::PolicySet& p, const std::string& name,
                                const Naming& names) {
  Yaml doc = Yaml::map();
  doc.set("apiVersion", "admissionregistration.k8s.io/v1")
      .set("kind", "MutatingAdmissionPolicyBinding")
      .set("metadata", metadata(names.object(name), p))
      .set("spec", std::move(Yaml::map().set("policyName", names.object(name))));
  return doc.render();
}

// The rollout modes some namespace can be in (no rule matching = enforce); observe changes
// nothing and gets no policy.
std::vector<policy::Mode> reachableModes(const policy::PolicySet& p) {
  std::vector<policy::Mode> out;
  bool catchAll = false;
  for (const auto& r : p.rollout) {
    if (!catchAll && std::find(out.begin(), out.end(), r.mode) == out.end()) out.push_back(r.mode);
    if (!r.namespaces) catchAll = true;
  }
  if (!catchAll && std::find(out.begin(), out.end(), policy::Mode::Enforce) == out.end())
    out.push_back(policy::Mode::Enforce);
  std::erase(out, policy::Mode::Observe);
  std::sort(out.begin(), out.end());
  return out;
}

const char* actionOf(policy::Mode m) {
  switch (m) {
    case policy::Mode::Enforce:
      return "Deny";
    case policy::Mode::Warn:
      return "Warn";
    default:
      return "Audit";
  }
}

}  // namespace

std::string reportText(const NativeOutput& native, std::string_view prefix) {
  const auto& rules = native.rules;
  std::string out;
  out.append(prefix).append("compiled into the apiserver (ValidatingAdmissionPolicy):\n");
  for (const auto& r : rules)
    if (r.compiled) out.append(prefix).append("  ").append(r.rule).append("\n");
  out.append(prefix).append("mutations compiled into the apiserver (MutatingAdmissionPolicy):\n");
  for (const auto& m : native.mutations) out.append(prefix).append("  ").append(m).append("\n");
  out.append(prefix).append("not compiled (the webhook alone enforces these):\n");
  for (const auto& r : rules)
    if (!r.compiled)
      out.append(prefix).append("  ").append(r.rule).append(": ").append(r.why).append("\n");
  out.append(prefix).append("limitations of the compiled form:\n");
  for (const auto& l : native.limitations) out.append(prefix).append("  ").append(l).append("\n");
  return out;
}

// What the webhook does that the compiled policies do not, for this policy.
std::vector<std::string> limitations(const policy::PolicySet& p) {
  std::vector<std::string> out = uncompiledMutations(p);
  out.insert(
      out.end(),
      {"workload pod templates are not judged: the compiled policies match pods",
       "a warning says the webhook's message after the apiserver's \"Validation failed for "
       "ValidatingAdmissionPolicy ...\" prefix, one warning for all violations",
       "\"(and N more)\" counts the compiled rules' violations only",
       "max-per-pod sums per pod as max(app containers, largest init container), exact for one "
       "GPU resource per pod"});
  // validate_pool_targeting's spec.nodeName reads the node's labels (the node watch).
  if (p.fieldGuards.gpuPoolTargeting)
    out.push_back(
        "gpu-pool-without-request by spec.nodeName is not compiled: it reads the node's labels; "
        "a nodeSelector entry, node affinity or toleration that targets a GPU pool is");
  // Kubernetes' quantity library compares exactly but neither multiplies nor prints.
  bool containerRules = !p.allPodsRules.containers.empty();
  bool env = !p.allPodsRules.containers.requiredEnv.empty();
  bool names = false;
  for (const auto& c : p.classes) {
    containerRules = containerRules || !c.containers.empty();
    env = env || !c.containers.requiredEnv.empty();
    names = names || c.effects.resourceName == policy::EffectMode::Require;
  }
  if (containerRules)
    out.push_back(
        "the container resource rules sum, divide and print quantities in thousandths "
        "(MilliValue, rounded up): an amount finer than 1m is judged and shown to the thousandth; "
        "resources-per-gpu-exceeded counts the pod's GPUs as max-per-pod does");
  if (env)
    out.push_back(
        "required-env-missing cuts a wrong value at 60 bytes as an ASCII name is cut (a control or "
        "multi-byte character there is shown as written)");
  if (names)
    out.push_back("resource-name-required reads at most 8 GPU resources per container map");
  // placement_conflict's bound-node check reads the named node's labels (supply).
  out.push_back(
      "placement-conflict of a pod bound by spec.nodeName to a node outside its class's pools is "
      "not compiled: it reads the node's labels; a spec.nodeName that contradicts the pod's own "
      "node affinity is");
  // guard_rules_cel: CEL cuts strings by characters and has no replace of control characters.
  bool checkpoints = false;
  for (const auto& c : p.classes) checkpoints = checkpoints || c.requireCheckpoint.has_value();
  for (const auto& t : p.priorityTiers)
    checkpoints = checkpoints || t.requireCheckpoint.has_value();
  if (checkpoints)
    out.push_back(
        "checkpoint-dangling and checkpoint-invalid quote a checkpoint annotation with control "
        "characters, or of more than 80 bytes with non-ASCII ones, otherwise than the webhook "
        "(same verdict)");
  if (p.fieldGuards.forbidNodeSelector)
    out.push_back(
        "node-selector-forbidden lists more than 32 nodeSelector keys of the pod's own unsorted");
  // Resolving claims reads claims and templates: natively every claim stays a GPU request of
  // unknown size, as in the webhook without spec.dra.
  if (p.dra.declared)
    out.push_back(
        "spec.dra is not compiled: the compiled rules treat every DRA claim as a GPU request of "
        "unknown size (a pod whose only claim is a NIC is a GPU pod natively); use backstop mode");
  return out;
}

NativeOutput compileNative(const policy::PolicySet& p, Form form) {
  const Naming names{form};
  NativeOutput out;
  out.limitations = limitations(p);
  std::vector<CelVariable> vars;
  try {
    vars = podVariables(p);
  } catch (const NotCompilable& e) {
    out.rules = reports(false, e.what());
    return out;
  }
  const std::vector<CelVariable> podVars = vars;
  for (auto& v : violationVariables(p)) vars.push_back(std::move(v));
  out.rules = reports(true, "");
  const std::vector<CompiledMutation> mutations = compiledMutations(p);
  for (const auto& m : mutations) out.mutations.push_back(kPrefix + m.name + ": " + m.description);
  // Comments in the object's own document: the apiserver's static manifest loader refuses a
  // document without a kind, as a comment-only one would be.
  const std::string header = "# Generated by gpu-admission compile --to native from policy \"" +
                             p.name + "\" (revision " + p.revision + "). Do not edit.\n" +
                             reportText(out, "# ");
  for (const auto mode : reachableModes(p)) {
    const char* m = policy::modeName(mode);
    out.files.emplace_back(names.file("validating", std::string("policy-") + m),
                           header + policyYaml(p, vars, m, names));
    out.files.emplace_back(names.file("validating", std::string("binding-") + m),
                           header + bindingYaml(p, m, actionOf(mode), names));
  }
  // Observe everywhere: no mode mutates, so no mutating policy either.
  if (!out.files.empty())
    for (const auto& m : mutations) {
      out.files.emplace_back(names.file("mutating", "policy-" + m.name),
                             header + mutatingYaml(p, podVars, m, names));
      out.files.emplace_back(names.file("mutating", "binding-" + m.name),
                             header + mutatingBindingYaml(p, m.name, names));
    }
  return out;
}

}  // namespace gpua::native
