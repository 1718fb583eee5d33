#include "engine/validate/field_guards.hpp"

#include <algorithm>
#include "policy/rule_ids.hpp"

#include "engine/core/json_util.hpp"
#include "engine/core/node_requirements.hpp"
#include "engine/core/text.hpp"
#include "engine/core/toleration.hpp"
#include "engine/pod/device_env.hpp"

namespace gpua::engine {

namespace rules = policy::rules;

namespace {

bool isDeviceVariable(std::string_view name) {
  for (const auto v : kDeviceVariables)
    if (name == v) return true;
  return false;
}

// A value from a ConfigMap or Secret cannot be judged here, so it counts as exposing GPUs.
bool hidesGpus(const rapidjson::Value& var) {
  if (json::member(&var, "valueFrom") != nullptr) return false;
  const std::string_view value = json::stringMember(&var, "value");
  for (const auto hiding : kHidingValues)
    if (value == hiding) return true;
  return false;
}

// The first variable of `container` that exposes GPUs, or null.
const rapidjson::Value* exposingVariable(const rapidjson::Value& container) {
  const rapidjson::Value* env = json::arrayMember(&container, "env");
  if (env == nullptr) return nullptr;
  for (const auto& var : env->GetArray())
    if (isDeviceVariable(json::stringMember(&var, "name")) && !hidesGpus(var)) return &var;
  return nullptr;
}

std::string shownValue(const rapidjson::Value& var) {
  if (json::member(&var, "valueFrom") != nullptr) return "a value from valueFrom";
  return text::quoted(text::oneLine(json::stringMember(&var, "value"), 40));
}

using Pools = std::span<const policy::Pool* const>;

// A requirement the class writes: one of its pools' own, exactly.
bool classRequirement(const rapidjson::Value& e, Pools pools) {
  const std::string_view key = json::stringMember(&e, "key");
  const auto op = nodeOperatorOf(json::stringMember(&e, "operator"));
  const rapidjson::Value* values = json::arrayMember(&e, "values");
  if (!op) return false;
  bool found = false;
  for (const auto* pool : pools)
    pool->forEachRequirement([&](const policy::NodeRequirementRef& r) {
      if (found || r.key != key || r.op != *op) return;
      const std::size_t n = values == nullptr ? 0 : values->Size();
      if (n != r.values.size()) return;
      bool same = true;
      for (rapidjson::SizeType i = 0; i < n && same; ++i)
        same = json::view((*values)[i]) == r.values[i];
      found = same;
    });
  return found;
}

bool ownedByDaemonSet(const PodView& pod) {
  const rapidjson::Value* owners = json::arrayMember(pod.metadata, "ownerReferences");
  if (owners != nullptr)
    for (const auto& o : owners->GetArray())
      if (json::stringMember(&o, "kind") == "DaemonSet") return true;
  return false;
}

// The first requirement of the author's in the node affinity, as "key Op [values]", or "".
std::string authorsNodeAffinity(const PodView& pod, Pools pools) {
  const rapidjson::Value* affinity =
      json::objectMember(json::objectMember(pod.spec, "affinity"), "nodeAffinity");
  if (affinity == nullptr) return {};
  const rapidjson::Value* preferred =
      json::arrayMember(affinity, "preferredDuringSchedulingIgnoredDuringExecution");
  if (preferred != nullptr && !preferred->Empty()) return "a preferred term";
  const rapidjson::Value* terms = json::arrayMember(
      json::objectMember(affinity, "requiredDuringSchedulingIgnoredDuringExecution"),
      "nodeSelectorTerms");
  if (terms == nullptr) return {};
  const bool daemonSet = ownedByDaemonSet(pod);
  for (const auto& term : terms->GetArray()) {
    if (const rapidjson::Value* fields = json::arrayMember(&term, "matchFields");
        fields != nullptr && !fields->Empty() && !daemonSet)
      return "matchFields";
    if (const rapidjson::Value* exprs = json::arrayMember(&term, "matchExpressions"))
      for (const auto& e : exprs->GetArray())
        if (!classRequirement(e, pools))
          return text::oneLine(json::stringMember(&e, "key"), 80) + " " +
                 text::oneLine(json::stringMember(&e, "operator"), 20);
  }
  return {};
}

// The spec.nodeSelector keys no class pool sets to the same value.
std::vector<std::string> authorsNodeSelector(const PodView& pod, Pools pools) {
  std::vector<std::string> keys;
  const rapidjson::Value* selector = json::objectMember(pod.spec, "nodeSelector");
  if (selector == nullptr) return keys;
  for (auto it = selector->MemberBegin(); it != selector->MemberEnd(); ++it) {
    const std::string_view key = json::view(it->name);
    bool own = false;
    for (const auto* pool : pools) {
      const auto v = pool->nodeSelector.find(std::string(key));
      own = own || (v != pool->nodeSelector.end() && it->value.IsString() &&
                    json::view(it->value) == v->second);
    }
    if (!own) keys.push_back(text::oneLine(key, 80));
  }
  return keys;
}

TolerationView viewOf(const rapidjson::Value& tol) {
  return {json::stringMember(&tol, "key"), json::stringMember(&tol, "operator"),
          json::stringMember(&tol, "value"), json::stringMember(&tol, "effect")};
}

// The toleration the class writes for one of its pools' taints, exactly.
bool classToleration(const TolerationView& t, Pools pools) {
  for (const auto* pool : pools)
    for (const auto& taint : pool->taints) {
      const TolerationView own = tolerationFor(taint);
      const std::string_view op = t.op.empty() ? std::string_view("Equal") : t.op;
      if (t.key == own.key && op == own.op && t.value == own.value && t.effect == own.effect)
        return true;
    }
  return false;
}

void checkTolerations(const PodView& pod, Pools pools, const policy::PolicySet& policy,
                      Violations& out) {
  const auto& keys = policy.fieldGuards.forbidTolerations;
  const rapidjson::Value* tolerations = json::arrayMember(pod.spec, "tolerations");
  if (keys.empty() || tolerations == nullptr) return;
  for (rapidjson::SizeType i = 0; i < tolerations->Size(); ++i) {
    const rapidjson::Value& tol = (*tolerations)[i];
    if (!tol.IsObject()) continue;
    const TolerationView t = viewOf(tol);
    const bool everything = t.key.empty() && t.op == "Exists";
    const auto hit = std::find_if(keys.begin(), keys.end(),
                                  [&](const std::string& k) { return everything || t.key == k; });
    if (hit == keys.end() || classToleration(t, pools)) continue;
    const std::string field = pod.fieldPrefix + "spec.tolerations[" + std::to_string(i) + "]";
    out.push_back({rules::kTolerationForbidden,
                   pod.subject + " " + field +
                       (everything ? " tolerates every taint, " + *hit + " included"
                                   : " tolerates the taint " + *hit) +
                       forbiddenByFieldGuard(policy, "forbidTolerations") + "remove " + field +
                       "; pods reach those nodes only through a class that places them there"});
    return;  // one finding explains it
  }
}

}  // namespace

std::string forbiddenByFieldGuard(const policy::PolicySet& policy, std::string_view guard) {
  std::string out = ", which policy ";
  out.append(text::quoted(policy.name))
      .append(" forbids (fieldGuards.")
      .append(guard)
      .append("): ");
  return out;
}

void checkPlacementGuards(const PodView& pod, Pools classPools, const policy::PolicySet& policy,
                          Violations& out) {
  const policy::FieldGuards& g = policy.fieldGuards;
  if (!g.guardsPlacement() || pod.spec == nullptr) return;
  const std::string spec = pod.fieldPrefix + "spec.";
  if (g.forbidNodeName)
    if (const std::string_view node = pod.specString("nodeName"); !node.empty())
      out.push_back({rules::kNodeNameForbidden,
                     pod.subject + " sets " + spec + "nodeName " +
                         text::quoted(text::oneLine(node, 80)) +
                         forbiddenByFieldGuard(policy, "forbidNodeName") + "remove " + spec +
                         "nodeName and let the scheduler place the pod"});
  if (g.forbidNodeSelector)
    if (const auto keys = authorsNodeSelector(pod, classPools); !keys.empty())
      out.push_back({rules::kNodeSelectorForbidden,
                     pod.subject + " selects nodes by " + spec + "nodeSelector (" +
                         text::join(keys) + ")" +
                         forbiddenByFieldGuard(policy, "forbidNodeSelector") + "remove " +
                         (keys.size() == 1 ? "that key" : "those keys") +
                         "; the policy places pods by class"});
  if (g.forbidNodeAffinity)
    if (const std::string what = authorsNodeAffinity(pod, classPools); !what.empty())
      out.push_back(
          {rules::kNodeAffinityForbidden, pod.subject + " sets node affinity (" + what + ") in " +
                                              spec + "affinity.nodeAffinity" +
                                              forbiddenByFieldGuard(policy, "forbidNodeAffinity") +
                                              "remove it; the policy places pods by class"});
  checkTolerations(pod, classPools, policy, out);
}

void checkVisibleDevicesEnv(const PodView& pod, const PodGpu& gpu, const policy::PolicySet& policy,
                            Violations& out) {
  if (!policy.fieldGuards.visibleDevicesEnv) return;
  for (const auto& c : gpu.containers) {
    if (c.wantsGpu()) continue;
    const rapidjson::Value* var = exposingVariable(*c.container);
    if (var == nullptr) continue;
    const std::string name(json::stringMember(var, "name"));
    out.push_back({rules::kVisibleDevicesWithoutGpu,
                   pod.subject + " " + containerLabel(c) + " sets " + name + " to " +
                       shownValue(*var) +
                       " but asks for no GPU, which would hand it the node's GPUs behind the "
                       "device plugin's back: request the GPU in resources.limits, or remove " +
                       name + " (or set it to void)"});
    return;  // one finding explains it
  }
}

}  // namespace gpua::engine
