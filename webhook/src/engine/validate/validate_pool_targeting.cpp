#include "engine/core/json_util.hpp"
#include "engine/core/text.hpp"
#include "engine/validate/validate.hpp"
#include "policy/rule_ids.hpp"

namespace gpua::engine {

namespace rules = policy::rules;

namespace {

// How the pod reaches `pool`, in words ("nodeSelector k=v"), or empty when it does not: a
// nodeSelector value that satisfies one of the pool's requirements that only the pool's kind
// of node can meet (In, Exists, Gt, Lt; NotIn and DoesNotExist also hold on CPU nodes).
std::string nodeSelectorHit(const PodView& pod, const policy::Pool& pool) {
  const rapidjson::Value* selector = json::objectMember(pod.spec, "nodeSelector");
  if (selector == nullptr) return {};
  std::string hit;
  pool.forEachRequirement([&](const policy::NodeRequirementRef& r) {
    const rapidjson::Value* v = hit.empty() ? json::member(selector, r.key) : nullptr;
    if (v == nullptr || !v->IsString()) return;
    if (r.requiresKey() && r.matchesValue(true, json::view(*v)))
      hit = "nodeSelector " + std::string(r.key) + "=" + std::string(json::view(*v));
  });
  return hit;
}

// One expression of the pod's required node affinity that asks for the pool's nodes: `In`
// with a value the pool accepts, or `Exists` on a key the pool requires.
std::string expressionHit(const rapidjson::Value& e, const policy::NodeRequirementRef& req) {
  if (json::stringMember(&e, "key") != req.key || !req.requiresKey()) return {};
  const std::string key(req.key);
  const std::string_view op = json::stringMember(&e, "operator");
  if (op == "Exists") return "node affinity " + key + " Exists";
  const auto* values = json::arrayMember(&e, "values");
  if (op != "In" || values == nullptr) return {};
  for (const auto& v : values->GetArray())
    if (v.IsString() && req.matchesValue(true, json::view(v)))
      return "node affinity " + key + "=" + std::string(json::view(v));
  return {};
}

std::string affinityHit(const PodView& pod, const policy::Pool& pool) {
  const auto* node = json::objectMember(json::objectMember(pod.spec, "affinity"), "nodeAffinity");
  const auto* terms =
      json::arrayMember(json::objectMember(node, "requiredDuringSchedulingIgnoredDuringExecution"),
                        "nodeSelectorTerms");
  if (terms == nullptr) return {};
  std::string hit;
  for (const auto& term : terms->GetArray()) {
    const auto* exprs = json::arrayMember(&term, "matchExpressions");
    if (exprs == nullptr) continue;
    for (const auto& e : exprs->GetArray())
      pool.forEachRequirement([&](const policy::NodeRequirementRef& req) {
        if (hit.empty()) hit = expressionHit(e, req);
      });
    if (!hit.empty()) return hit;
  }
  return hit;
}

// spec.nodeName on a node whose labels put it in `pool` (only decidable with node data; a pool
// that selects nothing by labels cannot be told from its nodes' labels here).
std::string nodeNameHit(const PodView& pod, const policy::Pool& pool,
                        const SupplySnapshot* supply) {
  if (supply == nullptr || !supply->available || !pool.selectsNodes()) return {};
  const std::string_view name = pod.specString("nodeName");
  const NodeSupply* node = name.empty() ? nullptr : supply->node(name);
  if (node == nullptr) return {};
  bool all = true;
  pool.forEachRequirement([&](const policy::NodeRequirementRef& r) {
    const auto it = node->labels.find(r.key);
    all = all && r.matchesValue(it != node->labels.end(), it != node->labels.end()
                                                              ? std::string_view(it->second)
                                                              : std::string_view());
  });
  return all ? "spec.nodeName " + text::oneLine(name, 80) : std::string();
}

// Only a toleration naming the taint's key counts: a blanket toleration (empty key) is what
// node agents such as monitoring DaemonSets carry, and it says nothing about GPUs.
std::string tolerationHit(const PodView& pod, const policy::Pool& pool) {
  const auto* tolerations = json::arrayMember(pod.spec, "tolerations");
  if (tolerations == nullptr) return {};
  for (const auto& taint : pool.taints)
    for (const auto& tol : tolerations->GetArray()) {
      if (json::stringMember(&tol, "key") != taint.key) continue;
      const std::string_view op = json::stringMember(&tol, "operator");
      const std::string_view effect = json::stringMember(&tol, "effect");
      const bool valueOk = op == "Exists" || json::stringMember(&tol, "value") == taint.value;
      if (valueOk && (effect.empty() || effect == taint.effect)) return "toleration " + taint.key;
    }
  return {};
}

}  // namespace

void validatePoolTargeting(const PodView& pod, const PodGpu& gpu, const policy::PolicySet& policy,
                           Violations& out, const SupplySnapshot* supply) {
  if (gpu.hasGpu || !policy.fieldGuards.gpuPoolTargeting) return;
  for (const auto& pool : policy.pools) {
    std::string how = nodeSelectorHit(pod, pool);
    std::string_view what = "nodeSelector entry";
    if (how.empty()) {
      how = affinityHit(pod, pool);
      what = "node affinity";
    }
    if (how.empty()) {
      how = tolerationHit(pod, pool);
      what = "toleration";
    }
    if (how.empty()) {
      how = nodeNameHit(pod, pool, supply);
      what = "spec.nodeName";
    }
    if (how.empty()) continue;
    out.push_back({rules::kGpuPoolWithoutRequest,
                   pod.subject + " targets GPU pool " + pool.name + " (" + text::oneLine(how, 120) +
                       ") but asks for no GPU: add a GPU to resources.limits of the container " +
                       "that needs one, or remove the " + std::string(what) +
                       " so the pod runs on CPU nodes",
                   false, what == "spec.nodeName"});
    return;  // one finding is enough to explain it
  }
}

}  // namespace gpua::engine
