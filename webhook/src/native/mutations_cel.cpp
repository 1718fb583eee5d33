#include "native/mutations_cel.hpp"

#include <functional>

#include "engine/classify/class_placement.hpp"
#include "engine/core/patch_op.hpp"
#include "engine/mutate/mutation.hpp"
#include "engine/pod/device_env.hpp"
#include "engine/pod/gpu_request.hpp"
#include "native/cel_text.hpp"
#include "native/placement_conflict_cel.hpp"
#include "native/rules_cel.hpp"

namespace gpua::native {

namespace {

using cel::str;
using policy::NodeOperator;
using Pools = engine::PoolList;

// The apiserver's MutatingAdmissionPolicy types a JSON Patch value by its place in the pod.
constexpr const char* kRequiredType =
    "Object.spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution";
const std::string kTermType = std::string(kRequiredType) + ".nodeSelectorTerms";
const std::string kExpressionType = kTermType + ".matchExpressions";

// The pods the webhook mutates at all: not exempt, skipped, validate-only, or in observe mode.
constexpr const char* kUnmutated =
    "(variables.exempt || variables.skip != \"\" || variables.mode == \"observe\")";

std::string patchOp(const std::string& op, const std::string& path, const std::string& value) {
  return "JSONPatch{op: " + op + ", path: " + path + (value.empty() ? "" : ", value: " + value) +
         "}";
}

std::string gated(const std::string& patch) {
  return std::string(kUnmutated) + " ? [] : " + patch;
}

// Per class: the ops for its GPU pods and for its CPU pods ("" = none), by engine/decide's
// mutate(): a GPU pod gets the effects of its class, a CPU pod of a class that places CPU pods
// its CPU pools' placement. "" when no class writes anything.
using PerClass = std::function<std::pair<std::string, std::string>(const policy::WorkloadClass&)>;

std::string byClass(const policy::PolicySet& p, const PerClass& ops) {
  std::string out = "[]";
  for (std::size_t i = p.classes.size(); i-- > 0;) {
    auto [gpu, cpu] = ops(p.classes[i]);
    if (gpu.empty() && cpu.empty()) continue;
    out = "(variables.cls == " + str(p.classes[i].name) + " ? (variables.hasGpu ? " +
          (gpu.empty() ? "[]" : gpu) + " : " + (cpu.empty() ? "[]" : cpu) + ") : " + out + ")";
  }
  return out == "[]" ? "" : gated(out);
}

bool mutates(policy::EffectMode m) {
  return m == policy::EffectMode::Mutate;
}

}  // namespace

Pools classPools(const policy::WorkloadClass& c, const policy::PolicySet& p) {
  Pools out;
  for (const auto& name : c.pools)
    if (const auto* pool = p.findPool(name)) out.push_back(pool);
  return out;
}

const std::string* poolRuntimeClass(const Pools& pools) {
  for (const auto* pool : pools)
    if (pool->runtimeClassName) return &*pool->runtimeClassName;
  return nullptr;
}

std::string namesRuntimeClass() {
  return "(has(object.spec.runtimeClassName) && object.spec.runtimeClassName != \"\")";
}

namespace {

// ---- placement: engine/mutate/mutate_affinity, mutate_node_selector ----

// policy::requirementImplies: the pod's expression `e` (same key) implies `r`.
std::string expressionImplies(const policy::NodeRequirementRef& r) {
  const std::string vals = "(has(e.values) ? e.values : [])";
  std::vector<std::string> any{"(e.operator == \"In\" && size(" + vals + ") > 0 && " + vals +
                               ".all(v, " + cel::nodeValueMatches(r, "v") + "))"};
  if (r.matchesValue(false, "")) any.push_back("e.operator == \"DoesNotExist\"");
  if (r.op == NodeOperator::Exists) any.push_back("e.operator in [\"Exists\", \"Gt\", \"Lt\"]");
  if (r.op == NodeOperator::NotIn)
    any.push_back("(e.operator == \"NotIn\" && " +
                  cel::strList({r.values.begin(), r.values.end()}) + ".all(v, v in " + vals + "))");
  int64_t w = 0;
  if ((r.op == NodeOperator::Gt || r.op == NodeOperator::Lt) && r.values.size() == 1 &&
      policy::parseNodeInteger(r.values.front(), w)) {
    const bool gt = r.op == NodeOperator::Gt;
    any.push_back("(e.operator == " + str(gt ? "Gt" : "Lt") + " && size(" + vals + ") == 1 && " +
                  vals + "[0].matches(" + cel::kNodeIntegerPattern + ") && int(" + vals + "[0]) " +
                  (gt ? ">= " : "<= ") + std::to_string(w) + ")");
  }
  return cel::anyOf(any);
}

// mutate_affinity's implied(): spec.nodeSelector (`ns`) or one expression of term `t` ("" = no
// term) implies `r`.
std::string implied(const policy::NodeRequirementRef& r, const std::string& t) {
  const std::string k = str(r.key);
  std::string out = "(" + k + " in ns && " + cel::nodeValueMatches(r, "ns[" + k + "]") + ")";
  if (t.empty()) return out;
  return "(" + out + " || (has(" + t + ".matchExpressions) && " + t +
         ".matchExpressions.exists(e, e.key == " + k + " && " + expressionImplies(r) + ")))";
}

std::string termHasPool(const policy::Pool& pool, const std::string& t) {
  std::vector<std::string> all;
  pool.forEachRequirement(
      [&](const policy::NodeRequirementRef& r) { all.push_back(implied(r, t)); });
  return cel::allOf(all);
}

}  // namespace

std::string satisfied(const Pools& pools, const std::string& t) {
  std::vector<std::string> any;
  for (const auto* pool : pools) any.push_back(termHasPool(*pool, t));
  return cel::anyOf(any);
}

std::string unimplied(const policy::Pool& pool, const std::string& t,
                      const std::function<std::string(const policy::NodeRequirementRef&)>& item) {
  std::vector<std::string> parts;
  pool.forEachRequirement([&](const policy::NodeRequirementRef& r) {
    parts.push_back("(" + implied(r, t) + " ? [] : [" + item(r) + "])");
  });
  std::string out;
  for (const auto& part : parts) out += (out.empty() ? "" : " + ") + part;
  return out.empty() ? "[]" : out;
}

namespace {

// The pool's requirements `t` does not imply, as typed objects.
std::string missingExpressions(const policy::Pool& pool, const std::string& t) {
  return unimplied(pool, t, [](const policy::NodeRequirementRef& r) {
    std::string e = kExpressionType + "{key: " + str(r.key) +
                    ", operator: " + str(policy::nodeOperatorName(r.op));
    if (!r.values.empty()) e += ", values: " + cel::strList({r.values.begin(), r.values.end()});
    return e + "}";
  });
}

// `t` AND `pool`: its matchFields as they are, matchExpressions extended.
std::string termWithPool(const policy::Pool& pool, const std::string& t) {
  if (t.empty()) return kTermType + "{matchExpressions: " + missingExpressions(pool, t) + "}";
  const std::string exprs = "(has(" + t + ".matchExpressions) ? " + t +
                            ".matchExpressions : []) + " + missingExpressions(pool, t);
  return "(has(" + t + ".matchFields) ? " + kTermType + "{matchFields: " + t +
         ".matchFields, matchExpressions: " + exprs + "} : " + kTermType +
         "{matchExpressions: " + exprs + "})";
}

std::string joined(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& s : items) out += (out.empty() ? "" : ", ") + s;
  return out;
}

// The op that writes the new terms (CEL `value`): the patcher cannot add into a missing parent,
// so the first missing one is added whole, as mutate_affinity does.
std::string newTermsOp() {
  const std::string a = "object.spec.affinity";
  const std::string na = a + ".nodeAffinity";
  const std::string req = na + ".requiredDuringSchedulingIgnoredDuringExecution";
  const std::string newRequired = std::string(kRequiredType) + "{nodeSelectorTerms: value}";
  const std::string newNode =
      "Object.spec.affinity.nodeAffinity{requiredDuringSchedulingIgnoredDuringExecution: " +
      newRequired + "}";
  const std::string reqPath =
      "\"/spec/affinity/nodeAffinity/requiredDuringSchedulingIgnoredDuringExecution";
  return "!has(" + a + ") ? " +
         patchOp("\"add\"", "\"/spec/affinity\"",
                 "Object.spec.affinity{nodeAffinity: " + newNode + "}") +
         " : !has(" + na + ") ? " + patchOp("\"add\"", "\"/spec/affinity/nodeAffinity\"", newNode) +
         " : !has(" + req + ") ? " + patchOp("\"add\"", reqPath + "\"", newRequired) + " : " +
         patchOp("has(" + req + ".nodeSelectorTerms) ? \"replace\" : \"add\"",
                 reqPath + "/nodeSelectorTerms\"", "value");
}

std::string affinityOps(const Pools& all) {
  Pools pools;
  for (const auto* pool : all)
    if (pool->selectsNodes()) pools.push_back(pool);
  if (pools.empty()) return "";
  std::vector<std::string> fresh, perTerm;
  for (const auto* pool : pools) {
    fresh.push_back(termWithPool(*pool, ""));
    perTerm.push_back(termWithPool(*pool, "t"));
  }
  // A term already narrowed to a pool stays; any other becomes one term per pool (one pool: a
  // map, several: flattened). No term: one per pool.
  const std::string mapped =
      pools.size() == 1 ? "terms.map(t, " + satisfied(pools, "t") + " ? t : " + perTerm[0] + ")"
                        : "terms.map(t, " + satisfied(pools, "t") + " ? [t] : [" + joined(perTerm) +
                              "]).flatten()";
  const std::string changed = "(size(terms) == 0 ? !" + satisfied(pools, "") +
                              " : terms.exists(t, !" + satisfied(pools, "t") + "))";
  return "cel.bind(ns, " + nodeSelector() + ", cel.bind(terms, " + requiredTerms() + ", " +
         changed + " ? cel.bind(value, size(terms) == 0 ? [" + joined(fresh) + "] : " + mapped +
         ", [" + newTermsOp() + "]) : []))";
}

std::string nodeSelectorOps(const Pools& pools, policy::Placement::OnConflict onConflict) {
  const policy::Pool* pool = nullptr;
  for (const auto* p : pools)
    if (pool == nullptr && !p->nodeSelector.empty()) pool = p;
  if (pool == nullptr) return "";
  using OnConflict = policy::Placement::OnConflict;
  std::string whole, ops, conflict;
  for (const auto& [k, v] : pool->nodeSelector) {
    const std::string key = str(k), value = str(v),
                      path = str("/spec/nodeSelector/" + engine::escapePointerToken(k));
    whole += (whole.empty() ? "" : ", ") + key + ": " + value;
    ops += " + (!(" + key + " in ns) ? [" + patchOp("\"add\"", path, value) + "] : ";
    ops += onConflict == OnConflict::Overwrite ? "ns[" + key + "] != " + value + " ? [" +
                                                     patchOp("\"replace\"", path, value) + "] : [])"
                                               : "[])";
    conflict += " || (" + key + " in ns && ns[" + key + "] != " + value + ")";
  }
  // onConflict deny: a pod whose selector holds a pool key with another value keeps it whole.
  const std::string denied = onConflict == OnConflict::Deny ? "false" + conflict + " ? [] : " : "";
  return "cel.bind(ns, " + nodeSelector() + ", " + denied + "(!has(object.spec.nodeSelector) ? [" +
         patchOp("\"add\"", "\"/spec/nodeSelector\"", "{" + whole + "}") + "] : []" + ops + "))";
}

std::string placementOps(const policy::WorkloadClass& c, const Pools& pools) {
  return c.placement.via == policy::Placement::Via::NodeSelector
             ? nodeSelectorOps(pools, c.placement.onConflict)
             : affinityOps(pools);
}

// ---- tolerations: engine/mutate/mutate_tolerations ----

// engine/core/toleration: toleration `t` of the pod tolerates `taint`.
std::string tolerates(const policy::Taint& taint) {
  const std::string op = "(has(t.operator) ? t.operator : \"\")";
  const std::string key = "(has(t.key) ? t.key : \"\")";
  const std::string effect = "(has(t.effect) ? t.effect : \"\")";
  return "((" + effect + " == \"\" || " + effect + " == " + str(taint.effect) + ") && (" + key +
         " == \"\" ? " + op + " == \"Exists\" : (" + key + " == " + str(taint.key) + " && (" + op +
         " == \"Exists\" || ((" + op + " == \"\" || " + op +
         " == \"Equal\") && (has(t.value) ? "
         "t.value : \"\") == " +
         str(taint.value) + ")))))";
}

std::string tolerationObject(const policy::Taint& taint) {
  std::string out = "Object.spec.tolerations{key: " + str(taint.key) +
                    ", operator: " + str(taint.value.empty() ? "Exists" : "Equal");
  if (!taint.value.empty()) out += ", value: " + str(taint.value);
  if (!taint.effect.empty()) out += ", effect: " + str(taint.effect);
  return out + "}";
}

}  // namespace

std::string untoleratedTaints(const Pools& pools,
                              const std::function<std::string(const policy::Taint&)>& item) {
  std::vector<const policy::Taint*> taints;
  for (const auto* pool : pools)
    for (const auto& taint : pool->taints) {
      bool duplicate = false;
      for (const auto* t : taints)
        duplicate = duplicate ||
                    (t->key == taint.key && t->value == taint.value && t->effect == taint.effect);
      if (!duplicate) taints.push_back(&taint);
    }
  std::string needed;
  for (const auto* t : taints)
    needed += std::string(needed.empty() ? "" : " + ") + "(tols.exists(t, " + tolerates(*t) +
              ") ? [] : [" + item(*t) + "])";
  return needed;
}

namespace {

std::string tolerationOps(const Pools& pools) {
  const std::string needed = untoleratedTaints(pools, tolerationObject);
  if (needed.empty()) return "";
  return "cel.bind(tols, has(object.spec.tolerations) ? object.spec.tolerations : [], "
         "cel.bind(needed, " +
         needed + ", size(needed) == 0 ? [] : has(object.spec.tolerations) ? needed.map(x, " +
         patchOp("\"add\"", "\"/spec/tolerations/-\"", "x") + ") : [" +
         patchOp("\"add\"", "\"/spec/tolerations\"", "needed") + "]))";
}

// ---- runtime class and deadline: engine/mutate/mutate_runtime ----

std::string runtimeClassOps(const Pools& pools) {
  const std::string* name = poolRuntimeClass(pools);
  if (name == nullptr) return "";
  const std::string f = "object.spec.runtimeClassName";
  return "(" + namesRuntimeClass() + " ? [] : [" +
         patchOp("has(" + f + ") ? \"replace\" : \"add\"", "\"/spec/runtimeClassName\"",
                 str(*name)) +
         "])";
}

std::string deadlineOps(const policy::WorkloadClass& c) {
  if (!c.maxRunSeconds) return "";
  const std::string f = "object.spec.activeDeadlineSeconds";
  const std::string max = std::to_string(*c.maxRunSeconds);
  return "(has(" + f + ") && " + f + " <= " + max + " ? [] : [" +
         patchOp("has(" + f + ") ? \"replace\" : \"add\"", "\"/spec/activeDeadlineSeconds\"", max) +
         "])";
}

std::string concat(const std::string& a, const std::string& b) {
  if (a.empty()) return b;
  if (b.empty()) return a;
  return a + " + " + b;
}

// ---- GPU resources: engine/mutate/mutate_resources ----

// A container's requests or limits map (`field`), or {}.
std::string resourceMap(const std::string& c, const char* field) {
  return "(has(" + c + ".resources) && has(" + c + ".resources." + field + ") ? " + c +
         ".resources." + field + " : {})";
}

// engine/pod parseWholeQuantity, as far as the apiserver stores a pod: a whole quantity >= 0.
std::string whole(const std::string& q) {
  return "(isQuantity(" + q + ") && quantity(" + q + ").isInteger() && !quantity(" + q +
         ").isLessThan(quantity(\"0\")))";
}

std::string positive(const std::string& q) {
  return "quantity(" + q + ").isGreaterThan(quantity(\"0\"))";
}

// GpuEntry::wantsGpu(): an invalid quantity, or more than zero.
std::string wants(const std::string& q) {
  return "(!" + whole(q) + " || " + positive(q) + ")";
}

std::string escapedKey(const std::string& k) {
  return k + ".replace(\"~\", \"~0\").replace(\"/\", \"~1\")";
}

// The ops for container `c` at JSON pointer `p` (CEL string): nvidia.com/gpu renamed to
// `target` (a CEL string, "" = no rename) in requests and limits when `rename` holds, and the
// limit of every GPU resource set to its request where it has none (mutateContainer). Entries
// with an invalid quantity are left as written.
std::string containerResourceOps(const ContainerCel& cc) {
  const std::string ok = "(" + cc.isGpu("k") + " && (!(k in req) || " + whole("req[k]") +
                         ") && (!(k in lim) || " + whole("lim[k]") + ") && ((k in req && " +
                         positive("req[k]") + ") || (k in lim && " + positive("lim[k]") + ")))";
  const std::string gpu = str(engine::kWholeGpu);
  const std::string res = "p + \"/resources/";
  const std::string renames =
      "(mv && " + gpu + " in req ? [" +
      patchOp("\"remove\"", res + "requests/nvidia.com~1gpu\"", "") + ", " +
      patchOp("\"add\"", res + "requests/\" + " + escapedKey("target"), "req[" + gpu + "]") +
      "] : []) + (mv && " + gpu + " in lim ? [" +
      patchOp("\"remove\"", res + "limits/nvidia.com~1gpu\"", "") + "] : [])";
  return "cel.bind(req, " + resourceMap("c", "requests") + ", cel.bind(lim, " +
         resourceMap("c", "limits") + ", cel.bind(ks, req.filter(k, " + ok +
         ") + lim.filter(k, !(k in req) && " + ok + "), cel.bind(mv, rename && " + gpu +
         " in ks, " + renames + " + cel.bind(adds, (mv && " + gpu +
         " in lim ? [[target, string(lim[" + gpu +
         "])]] : []) + ks.filter(k, !(k in lim) && k in req).map(k, [mv && k == " + gpu +
         " ? target : string(k), string(req[k])]), size(adds) == 0 ? [] : (has(c.resources.limits) "
         "? [] : [" +
         patchOp("\"add\"", res + "limits\"", "{}") + "]) + adds.map(a, " +
         patchOp("\"add\"", res + "limits/\" + " + escapedKey("string(a[0])"), "a[1]") + "))))))";
}

// engine/mutate/mutate_resources for the classes whose resourceName effect mutates; the target
// is engine gpuRewriteTarget(): the class's resource unless the pod picked a MIG profile itself.
std::string resourceOps(const policy::PolicySet& p) {
  std::vector<std::string> classes;
  std::string target = "\"\"";
  for (std::size_t i = p.classes.size(); i-- > 0;) {
    const auto& c = p.classes[i];
    if (!mutates(c.effects.resourceName)) continue;
    classes.insert(classes.begin(), c.name);
    if (!c.resolvedResource.empty() && c.resolvedResource != engine::kWholeGpu)
      target = "(variables.cls == " + str(c.name) + " ? " + str(c.resolvedResource) + " : " +
               target + ")";
  }
  if (classes.empty()) return "";
  const ContainerCel cc{p};
  auto mig = [&](const char* field) {
    return resourceMap("c", field) + ".exists(k, k.startsWith(" + str(engine::kMigPrefix) +
           ") && " + wants(resourceMap("c", field) + "[k]") + ")";
  };
  const std::string rename = "target != \"\" && !(variables.ctrs + variables.inits).exists(c, " +
                             mig("requests") + " || " + mig("limits") + ")";
  const std::string per = containerResourceOps(cc);
  return gated("variables.hasGpu && variables.cls in " + cel::strList(classes) +
               " ? cel.bind(target, " + target + ", cel.bind(rename, " + rename +
               ", variables.ctrs.transformList(i, c, cel.bind(p, \"/spec/containers/\" + "
               "string(i), " +
               per +
               ")).flatten() + variables.inits.transformList(i, c, cel.bind(p, "
               "\"/spec/initContainers/\" + string(i), " +
               per + ")).flatten())) : []");
}

// ---- device variables: engine/mutate/mutate_sidecar_env ----

std::string visibleDevicesOps(const policy::PolicySet& p) {
  const ContainerCel cc{p};
  auto anyGpu = [&](const char* field) {
    return resourceMap("c", field) + ".exists(k, " + cc.isGpu("k") + " && " +
           wants(resourceMap("c", field) + "[k]") + ")";
  };
  // ContainerGpu::wantsGpu(): DRA claims, or a GPU resource it asks for.
  const std::string noGpu =
      "!((has(c.resources) && has(c.resources.claims) && size(c.resources.claims) > 0) || " +
      anyGpu("requests") + " || " + anyGpu("limits") + ")";
  const std::string env = "Object.spec.containers.env{name: " + str(engine::kVisibleDevicesVar) +
                          ", value: " + str(engine::kNoDevicesValue) + "}";
  auto ops = [&](const std::string& list, const std::string& prefix) {
    return list + ".transformList(i, c, " + noGpu +
           " && has(c.env) && !c.env.exists(e, e.name == " + str(engine::kVisibleDevicesVar) +
           "), " + patchOp("\"add\"", str(prefix) + " + string(i) + \"/env/-\"", env) + ") + " +
           list + ".transformList(i, c, " + noGpu + " && !has(c.env), " +
           patchOp("\"add\"", str(prefix) + " + string(i) + \"/env\"", "[" + env + "]") + ")";
  };
  return "variables.cls != \"\" && variables.hasGpu ? " +
         ops("variables.ctrs", "/spec/containers/") + " + " +
         ops("variables.inits", "/spec/initContainers/") + " : []";
}

// A GPU pod whose own placement contradicts every pool of its class keeps it as written
// (engine/decide: warn and audit admit it unchanged, enforce denies it).
std::string gpuPlacementOps(const policy::PolicySet& p, const policy::WorkloadClass& c) {
  std::string ops = placementOps(c, classPools(c, p));
  const std::string conflict = placementConflictTest(p, c);
  if (ops.empty() || conflict.empty()) return ops;
  return "(" + conflict + " ? [] : " + ops + ")";
}

// ---- decision annotations: engine/mutate/mutate_annotations ----

std::string annotationOps(const policy::PolicySet& p) {
  const std::string a = "object.metadata.annotations";
  const std::string policyValue = str(p.name + "@" + p.revision);
  const std::string pairs = "[[" + str(engine::kClassAnnotation) + ", variables.cls], [" +
                            str(engine::kPolicyAnnotation) + ", " + policyValue + "]]";
  return "variables.cls == \"\" ? [] : !has(" + a + ") ? [" +
         patchOp("\"add\"", "\"/metadata/annotations\"",
                 "{" + str(engine::kClassAnnotation) + ": variables.cls, " +
                     str(engine::kPolicyAnnotation) + ": " + policyValue + "}") +
         "] : " + pairs + ".filter(kv, !(kv[0] in " + a + ") || " + a +
         "[kv[0]] != kv[1]).map(kv, " +
         patchOp("kv[0] in " + a + " ? \"replace\" : \"add\"",
                 "\"/metadata/annotations/\" + " + escapedKey("kv[0]"), "kv[1]") +
         ")";
}

// ---- priority class: engine/mutate/mutate_priority ----

}  // namespace

std::string priorityChange(const policy::PolicySet& p, const policy::WorkloadClass& c) {
  if (!c.priorityClassName) return "";
  const std::string name =
      "(has(object.spec.priorityClassName) ? object.spec.priorityClassName : \"\")";
  const std::string notChosen =
      c.overridePriorityClass
          ? ""
          : "(" + name + " == \"\"" +
                (p.globalDefaultPriorityClass
                     ? " || " + name + " == " + str(*p.globalDefaultPriorityClass)
                     : std::string()) +
                ")";
  return cel::allOf({name + " != " + str(*c.priorityClassName), notChosen});
}

namespace {

// The class's priority class where the pod named none or the cluster's global default (or the
// class overrides), for the pods the class places; "" when none is written.
std::string priorityVariable(const policy::PolicySet& p) {
  const std::string name =
      "(has(object.spec.priorityClassName) ? object.spec.priorityClassName : \"\")";
  std::string out = "\"\"";
  bool any = false;
  for (std::size_t i = p.classes.size(); i-- > 0;) {
    const auto& c = p.classes[i];
    if (!c.priorityClassName || !mutates(c.effects.priorityClass)) continue;
    any = true;
    const std::string cond =
        cel::allOf({"variables.cls == " + str(c.name),
                    engine::placesCpuPods(c) ? "" : "variables.hasGpu", priorityChange(p, c)});
    out = "(" + cond + " ? " + str(*c.priorityClassName) + " : " + out + ")";
  }
  if (!any) return "";
  return std::string(kUnmutated) + " ? \"\" : " + out;
}

// spec.priority and preemptionPolicy, resolved by the Priority plugin from the old class, are
// removed for it to fill in again.
constexpr const char* kPriorityPatch =
    "variables.priority == \"\" ? [] : [JSONPatch{op: has(object.spec.priorityClassName) ? "
    "\"replace\" : \"add\", path: \"/spec/priorityClassName\", value: variables.priority}] + "
    "(has(object.spec.priority) ? [JSONPatch{op: \"remove\", path: \"/spec/priority\"}] : []) + "
    "(has(object.spec.preemptionPolicy) ? [JSONPatch{op: \"remove\", path: "
    "\"/spec/preemptionPolicy\"}] : [])";

}  // namespace

std::vector<CompiledMutation> compiledMutations(const policy::PolicySet& p) {
  std::vector<CompiledMutation> out;
  auto add = [&](const char* name, const char* what, std::string patch) {
    if (!patch.empty()) out.push_back({name, what, {}, std::move(patch)});
  };
  // The webhook mutates no pod it denies in enforce mode (engine/decide). Of what these policies
  // write, only the rename changes what the compiled rules say about a pod (they name its
  // resource), and an overwritten nodeSelector value (node-selector-forbidden reads it), so these
  // alone wait for them: a pod a compiled rule denies is judged, and worded, as the user wrote
  // it, as by the webhook.
  if (std::string ops = resourceOps(p); !ops.empty())
    out.push_back(
        {"resources",
         "GPU resources: nvidia.com/gpu renamed to the class's MIG or shared resource "
         "in requests and limits, GPU limits set to the requests where missing (not on "
         "a pod a compiled rule denies in enforce mode)",
         violationVariables(p),
         "variables.mode == \"enforce\" && size(variables.violations) > 0 ? [] : " + ops});
  const char* placementWhat =
      "placement: the pools' node requirements ANDed into every required nodeSelectorTerm, or "
      "their labels into spec.nodeSelector";
  std::string placement = byClass(p, [&](const policy::WorkloadClass& c) {
    const Pools cpu = engine::cpuPoolsOf(c, p);
    return std::pair{mutates(c.effects.nodePlacement) ? gpuPlacementOps(p, c) : "",
                     engine::placesCpuPods(c) ? placementOps(c, cpu) : ""};
  });
  // A nodeSelector value a class overwrites is what node-selector-forbidden reads: with that
  // guard on, the placement too waits for the compiled rules, as the webhook's does.
  bool overwrites = false;
  for (const auto& c : p.classes)
    overwrites = overwrites || (c.placement.via == policy::Placement::Via::NodeSelector &&
                                c.placement.onConflict == policy::Placement::OnConflict::Overwrite);
  if (!placement.empty() && overwrites && p.fieldGuards.forbidNodeSelector)
    out.push_back(
        {"placement",
         std::string(placementWhat) + " (not on a pod a compiled rule denies in enforce "
                                      "mode)",
         violationVariables(p),
         "variables.mode == \"enforce\" && size(variables.violations) > 0 ? [] : " + placement});
  else
    add("placement", placementWhat, std::move(placement));
  add("tolerations", "tolerations: the pools' taints the pod does not tolerate yet",
      byClass(p, [&](const policy::WorkloadClass& c) {
        const Pools cpu = engine::cpuPoolsOf(c, p);
        return std::pair{mutates(c.effects.toleration) ? tolerationOps(classPools(c, p)) : "",
                         engine::placesCpuPods(c) ? tolerationOps(cpu) : ""};
      }));
  if (const std::string priority = priorityVariable(p); !priority.empty())
    out.push_back({"priority",
                   "priority class: the class's priorityClassName, spec.priority and "
                   "preemptionPolicy removed for the Priority plugin to fill in again",
                   {{"priority", priority}},
                   kPriorityPatch});
  add("runtime",
      "runtime class and deadline: the pools' runtimeClassName where the pod names none, "
      "activeDeadlineSeconds set or lowered to the class's maxRunSeconds",
      byClass(p, [&](const policy::WorkloadClass& c) {
        const Pools cpu = engine::cpuPoolsOf(c, p);
        return std::pair{
            concat(mutates(c.effects.runtimeClass) ? runtimeClassOps(classPools(c, p)) : "",
                   deadlineOps(c)),
            engine::placesCpuPods(c) ? runtimeClassOps(cpu) : ""};
      }));
  if (p.fieldGuards.voidNonGpuContainers)
    add("visible-devices",
        "NVIDIA_VISIBLE_DEVICES=void in the containers of a GPU pod that ask for no GPU",
        gated(visibleDevicesOps(p)));
  add("annotations", "decision annotations: gpu-admission.io/class and gpu-admission.io/policy",
      gated(annotationOps(p)));
  return out;
}

std::vector<std::string> uncompiledMutations(const policy::PolicySet& p) {
  std::vector<std::string> out;
  bool defaults = p.allPodsRules.containers.writesDefaults();
  for (const auto& c : p.classes) defaults = defaults || c.containers.writesDefaults();
  if (defaults)
    out.push_back(
        "container defaults (defaultRequestsPerGpu, defaultRequests, limitsFromRequests) are not "
        "compiled: the webhook multiplies quantities and writes them in the policy's unit, and "
        "Kubernetes' CEL quantity library can neither multiply nor format a quantity");
  return out;
}

}  // namespace gpua::native
