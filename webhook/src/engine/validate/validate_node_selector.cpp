// node-selector-conflict: with placement via nodeSelector, a pod that already sets one of the
// pool's nodeSelector keys to another value can never land on the pool. placement.onConflict
// keep and deny report it; overwrite replaces the value instead (see mutate_node_selector.cpp).
#include "engine/core/json_util.hpp"
#include "engine/core/text.hpp"
#include "engine/validate/validate.hpp"
#include "policy/rule_ids.hpp"

namespace gpua::engine {

namespace rules = policy::rules;

void checkNodeSelectorConflict(const PodView& pod, const policy::WorkloadClass& cls,
                               const PoolList& pools, Violations& out) {
  if (cls.placement.via != policy::Placement::Via::NodeSelector ||
      cls.placement.onConflict == policy::Placement::OnConflict::Overwrite)
    return;
  const rapidjson::Value* selector = json::objectMember(pod.spec, "nodeSelector");
  if (selector == nullptr) return;
  for (const auto* pool : pools)
    for (const auto& [k, v] : pool->nodeSelector) {
      const rapidjson::Value* current = json::member(selector, k);
      if (current == nullptr || (current->IsString() && json::view(*current) == v)) continue;
      const std::string has = current->IsString()
                                  ? text::quoted(text::oneLine(json::view(*current), 80))
                                  : text::oneLine(json::serialize(*current), 40);
      out.push_back({rules::kNodeSelectorConflict,
                     pod.subject + " sets " + pod.fieldPrefix + "spec.nodeSelector " +
                         text::oneLine(k, 80) + "=" + has + " but class " + cls.name +
                         " places its pods on pool " + pool->name + ", which needs " + k + "=" +
                         text::quoted(v) + ": remove that nodeSelector entry (the webhook sets " +
                         "it) or set it to " + text::quoted(v)});
      return;  // one conflict explains it
    }
}

}  // namespace gpua::engine
