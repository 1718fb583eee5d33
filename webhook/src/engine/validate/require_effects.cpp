#include "engine/validate/require_effects.hpp"
#include "policy/rule_ids.hpp"

#include <algorithm>

#include "engine/classify/class_placement.hpp"
#include "engine/core/json_util.hpp"
#include "engine/core/text.hpp"
#include "engine/mutate/mutation.hpp"

namespace gpua::engine {

namespace rules = policy::rules;

namespace {

using policy::EffectMode;
using Mutator = void (*)(const MutationContext&, MutationOutput&);

// The ops `mutator` would write for this pod; nothing is kept.
Patch dryRun(Mutator mutator, const ValidationInput& in, std::string_view rewriteTo) {
  Patch patch;
  TextList changes;
  MutationOutput out{patch, changes};
  const MutationContext ctx{in.pod, in.gpu, in.policy, in.cls, in.pools, rewriteTo};
  mutator(ctx, out);
  return patch;
}

bool isIndex(std::string_view token) {
  if (token.empty()) return false;
  for (char c : token)
    if (c < '0' || c > '9') return false;
  return true;
}

// "/spec/affinity/nodeAffinity" -> "spec.affinity.nodeAffinity", "/spec/containers/0/resources"
// -> "spec.containers[0].resources" (with the template's prefix).
std::string fieldOf(const ValidationInput& in, std::string_view pointer) {
  std::string out = in.pod.fieldPrefix;
  bool first = true;
  while (!pointer.empty()) {
    pointer.remove_prefix(1);  // the '/'
    const std::size_t end = std::min(pointer.find('/'), pointer.size());
    const std::string_view token = pointer.substr(0, end);
    pointer.remove_prefix(end);
    if (isIndex(token) && !first) {
      out.append("[").append(token).append("]");
      continue;
    }
    if (!first) out += '.';
    first = false;
    for (std::size_t i = 0; i < token.size(); ++i) {
      if (token[i] == '~' && i + 1 < token.size())
        out += token[++i] == '1' ? '/' : '~';
      else
        out += token[i];
    }
  }
  return out;
}

// What to write, op by op: "add to spec.tolerations: {...}", "set spec.affinity: {...}".
// Removals of fields the Priority plugin computed are not the author's to write.
std::string fixOf(const ValidationInput& in, const Patch& patch) {
  std::vector<std::string> steps;
  for (const auto& op : patch) {
    if (op.kind == PatchOp::Kind::Remove) continue;
    if (op.path.ends_with("/-")) {
      steps.push_back("add to " +
                      fieldOf(in, std::string_view(op.path).substr(0, op.path.size() - 2)) + ": " +
                      op.valueJson);
    } else {
      steps.push_back("set " + fieldOf(in, op.path) + ": " + op.valueJson);
    }
  }
  return text::join(steps, "; ");
}

std::string poolNames(const ValidationInput& in, bool (*relevant)(const policy::Pool&)) {
  std::vector<std::string> names;
  for (const auto* p : in.pools)
    if (relevant(*p)) names.push_back(p->name);
  return text::join(names, ", ");
}

void report(const ValidationInput& in, const char* rule, const std::string& lacks,
            const Patch& patch, Violations& out) {
  out.push_back({rule, in.pod.subject + " " + lacks + ", which " + ruleOwner(in.cls) +
                           " requires rather than adds: " + fixOf(in, patch)});
}

void requireToleration(const ValidationInput& in, Violations& out) {
  const Patch patch = dryRun(&mutateTolerations, in, {});
  if (patch.empty()) return;
  report(in, rules::kTolerationRequired,
         "does not tolerate the taints of pool " +
             poolNames(in, [](const policy::Pool& p) { return !p.taints.empty(); }),
         patch, out);
}

// Whether spec.nodeSelector holds every nodeSelector label of `pool`.
bool nodeSelectorHolds(const rapidjson::Value* selector, const policy::Pool& pool) {
  for (const auto& [k, v] : pool.nodeSelector) {
    const rapidjson::Value* value = json::member(selector, k);
    if (value == nullptr || !value->IsString() || json::view(*value) != v) return false;
  }
  return true;
}

// `pool` with its matchExpressions only: what node affinity must still say when the pool's
// labels are in spec.nodeSelector (which cannot state NotIn, Exists, DoesNotExist, Gt, Lt).
policy::Pool expressionsOnly(const policy::Pool& pool) {
  policy::Pool out = pool;
  out.nodeSelector.clear();
  return out;
}

// The ops that would AND the pool's matchExpressions alone into the required terms.
Patch expressionsPatch(const ValidationInput& in, const policy::Pool& pool) {
  const policy::Pool expressions = expressionsOnly(pool);
  Patch patch;
  TextList changes;
  MutationOutput out{patch, changes};
  mutateAffinity({in.pod, in.gpu, in.policy, in.cls, {&expressions}, {}}, out);
  return patch;
}

// The fix through spec.nodeSelector, when one pool has labels (a nodeSelector cannot say "one
// of these pools"): its labels there, plus node affinity for its matchExpressions.
std::string nodeSelectorAlternative(const ValidationInput& in) {
  PoolList placing;
  for (const auto* p : in.pools)
    if (!p->nodeSelector.empty()) placing.push_back(p);
  if (placing.size() != 1) return {};
  const policy::Pool& pool = *placing.front();
  // The labels are there already: the main fix (what the mutation would add) is the rest.
  if (nodeSelectorHolds(json::objectMember(in.pod.spec, "nodeSelector"), pool)) return {};
  const std::string affinity =
      pool.matchExpressions.empty() ? std::string() : fixOf(in, expressionsPatch(in, pool));
  std::string out = " (or add to ";
  out.append(in.pod.fieldPrefix).append("spec.nodeSelector: {");
  bool first = true;
  for (const auto& [k, v] : pool.nodeSelector) {
    if (!first) out += ',';
    first = false;
    out.append(json::quoteString(k)).append(":").append(json::quoteString(v));
  }
  out += '}';
  if (!affinity.empty()) out.append(" and ").append(affinity);
  return out + ")";
}

void requirePlacement(const ValidationInput& in, Violations& out) {
  // The mutation leaves a pod alone exactly when its own selection (node affinity and
  // spec.nodeSelector together) implies a pool's: require accepts the same pods.
  const Patch patch = dryRun(&mutatePlacement, in, {});
  if (patch.empty()) return;
  out.push_back({rules::kNodePlacementRequired,
                 in.pod.subject + " does not select the nodes of pool " +
                     poolNames(in, [](const policy::Pool& p) { return p.selectsNodes(); }) +
                     ", which class " + in.cls.name + " requires rather than adds: " +
                     fixOf(in, patch) + nodeSelectorAlternative(in)});
}

void requirePriorityClass(const ValidationInput& in, Violations& out) {
  const Patch patch = dryRun(&mutatePriority, in, {});
  if (patch.empty()) return;
  const std::string_view current = in.pod.specString("priorityClassName");
  report(in, rules::kPriorityClassRequired,
         current.empty() ? "names no priorityClassName"
                         : "names priorityClassName " + text::quoted(current) + " instead of " +
                               *in.cls.priorityClassName,
         patch, out);
}

void requireRuntimeClass(const ValidationInput& in, Violations& out) {
  const Patch patch = dryRun(&mutateRuntimeClass, in, {});
  if (patch.empty()) return;
  report(in, rules::kRuntimeClassRequired,
         "names no runtimeClassName for the GPU nodes of pool " +
             poolNames(in, [](const policy::Pool& p) { return p.runtimeClassName.has_value(); }),
         patch, out);
}

// The class's container defaults, demanded: what the mutation would write is the fix.
void requireResourceRequests(const ValidationInput& in, Violations& out) {
  const Patch patch = dryRun(&mutateResourceRequests, in, {});
  if (patch.empty()) return;
  report(in, rules::kResourceRequestsRequired,
         "has containers without the default requests or limits", patch, out);
}

// One violation per container that asks under another name (or gives requests only), with the
// limits to write.
void requireResourceName(const ValidationInput& in, Violations& out) {
  const std::string_view target = gpuRewriteTarget(in.cls, in.gpu, in.pod.isTemplate);
  for (const auto& c : in.gpu.containers) {
    std::vector<std::string> wanted, wrong;
    for (const auto& e : c.gpus) {
      if (!e.wantsGpu() || e.invalid) continue;
      const bool rename = !target.empty() && e.resource == kWholeGpu;
      if (!rename && e.limit != nullptr) continue;
      const std::string_view name = rename ? target : e.resource;
      wanted.push_back(json::quoteString(name) + ":" + std::to_string(e.units()));
      if (rename) wrong.push_back(std::string(e.resource));
    }
    if (wanted.empty()) continue;
    const std::string field = containerField(in.pod, c) + ".resources";
    const std::string what =
        !wrong.empty() ? "asks for " + text::join(wrong) + " but class " + in.cls.name +
                             " runs on " + std::string(target) +
                             ", which it requires rather than "
                             "rewrites: write " +
                             field + ".limits {" + text::join(wanted) + "}" +
                             (c.requests != nullptr ? " (and the same requests, or none)" : "") +
                             " instead of " + text::join(wrong)
                       : "sets GPU requests without limits, and class " + in.cls.name +
                             " requires limits rather than adds them: write " + field +
                             ".limits {" + text::join(wanted) + "}";
    out.push_back(
        {rules::kResourceNameRequired, in.pod.subject + " " + containerLabel(c) + " " + what});
  }
}

}  // namespace

void checkRequiredContainerDefaults(const ValidationInput& in, Violations& out) {
  // Container defaults follow the containers rules' scope, as in mutate mode.
  if (in.cls.effects.resourceRequests == EffectMode::Require &&
      inRuleScope(in.cls.containers.appliesTo, in.cls, in.gpu))
    requireResourceRequests(in, out);
}

void checkRequiredEffects(const ValidationInput& in, Violations& out) {
  checkRequiredContainerDefaults(in, out);
  // The other effects belong to the class's GPUs: a CPU pod of an optional-GPU class gets none
  // of them in mutate mode either.
  if (!in.gpu.hasGpu) return;
  const policy::Effects& fx = in.cls.effects;
  if (fx.resourceName == EffectMode::Require) requireResourceName(in, out);
  if (fx.nodePlacement == EffectMode::Require) requirePlacement(in, out);
  if (fx.toleration == EffectMode::Require) requireToleration(in, out);
  if (fx.priorityClass == EffectMode::Require) requirePriorityClass(in, out);
  if (fx.runtimeClass == EffectMode::Require) requireRuntimeClass(in, out);
}

}  // namespace gpua::engine
