#include "engine/core/json_util.hpp"
#include "engine/mutate/mutation.hpp"

namespace gpua::engine {

void mutateAnnotations(const MutationContext& ctx, MutationOutput& out) {
  const std::string policyValue = ctx.policy.name + "@" + ctx.policy.revision;
  const std::pair<std::string_view, std::string_view> wanted[] = {{kClassAnnotation, ctx.cls.name},
                                                                  {kPolicyAnnotation, policyValue}};
  const rapidjson::Value* annotations = json::objectMember(ctx.pod.metadata, "annotations");
  if (annotations == nullptr) {
    // Written in one pass, wrapped in {"annotations":...} when metadata itself is missing.
    const bool wrap = ctx.pod.metadata == nullptr;
    std::string object;
    object.reserve(128 + ctx.cls.name.size() + policyValue.size());
    if (wrap) object += "{\"annotations\":";
    object += '{';
    const std::size_t start = object.size();
    for (const auto& [k, v] : wanted) {
      if (object.size() > start) object += ',';
      json::appendQuoted(object, k);
      object += ':';
      json::appendQuoted(object, v);
    }
    object += '}';
    if (wrap) {
      object += '}';
      out.add("/metadata", std::move(object));
    } else {
      out.add("/metadata/annotations", std::move(object));
    }
    return;
  }
  for (const auto& [k, v] : wanted) {
    const rapidjson::Value* current = json::member(annotations, k);
    if (current != nullptr && json::view(*current) == v) continue;
    std::string path = "/metadata/annotations/" + escapePointerToken(k);
    if (current == nullptr) {
      out.add(std::move(path), json::quoteString(v));
    } else {
      out.replace(std::move(path), json::quoteString(v));
    }
  }
}

}  // namespace gpua::engine
