#include "engine/core/json_util.hpp"
#include "engine/core/text.hpp"
#include "engine/mutate/mutation.hpp"

namespace gpua::engine {

namespace {

using OnConflict = policy::Placement::OnConflict;

// The one pool whose labels go into spec.nodeSelector (the loader allows at most one pool
// with labels, and no matchExpressions, for this placement).
const policy::Pool* selectorPool(const MutationContext& ctx) {
  for (const auto* pool : ctx.pools)
    if (!pool->nodeSelector.empty()) return pool;
  return nullptr;
}

}  // namespace

void mutatePlacement(const MutationContext& ctx, MutationOutput& out) {
  if (ctx.cls.placement.via == policy::Placement::Via::NodeSelector) {
    mutateNodeSelector(ctx, out);
  } else {
    mutateAffinity(ctx, out);
  }
}

void mutateNodeSelector(const MutationContext& ctx, MutationOutput& out) {
  const policy::Pool* pool = selectorPool(ctx);
  if (pool == nullptr) return;
  const rapidjson::Value* selector = json::objectMember(ctx.pod.spec, "nodeSelector");
  const OnConflict onConflict = ctx.cls.placement.onConflict;
  std::vector<std::pair<const std::string*, const std::string*>> adds;
  std::vector<std::string> overwritten;
  for (const auto& [k, v] : pool->nodeSelector) {
    const rapidjson::Value* current = json::member(selector, k);
    if (current == nullptr) {
      adds.emplace_back(&k, &v);
      continue;
    }
    if (json::view(*current) == v && current->IsString()) continue;
    // The conflict itself is reported by validation (node-selector-conflict).
    if (onConflict == OnConflict::Deny) return;
    if (onConflict == OnConflict::Keep) continue;
    out.replace("/spec/nodeSelector/" + escapePointerToken(k), json::quoteString(v));
    overwritten.push_back(text::oneLine(k, 60) + "=" + text::oneLine(v, 60));
  }
  if (selector == nullptr && !adds.empty()) {
    std::string object = "{";
    for (const auto& [k, v] : adds) {
      if (object.size() > 1) object += ',';
      object += json::quoteString(*k) + ":" + json::quoteString(*v);
    }
    out.add("/spec/nodeSelector", object + "}");
  } else {
    for (const auto& [k, v] : adds)
      out.add("/spec/nodeSelector/" + escapePointerToken(*k), json::quoteString(*v));
  }
  if (!adds.empty()) out.changes.push_back("nodeSelector pool " + pool->name);
  if (!overwritten.empty())
    out.changes.push_back("nodeSelector overwritten: " + text::join(overwritten));
}

}  // namespace gpua::engine
