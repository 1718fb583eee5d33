#include "engine/json_util.hpp"
#include "engine/mutation.hpp"

namespace gpua::engine {

void mutateAnnotations(const MutationContext& ctx, MutationOutput& out) {
  const std::string policyValue = ctx.policy.name + "@" + ctx.policy.revision;
  const std::pair<std::string_view, std::string_view> wanted[] = {{kClassAnnotation, ctx.cls.name},
                                                                  {kPolicyAnnotation, policyValue}};
  const rapidjson::Value* annotations = json::objectMember(ctx.pod.metadata, "annotations");
  if (annotations == nullptr) {
    std::string object = "{";
    for (const auto& [k, v] : wanted)
      object += (object.size() > 1 ? "," : "") + json::quoteString(k) + ":" + json::quoteString(v);
    object += "}";
    if (ctx.pod.metadata == nullptr) {
      out.add("/metadata", "{\"annotations\":" + object + "}");
    } else {
      out.add("/metadata/annotations", object);
    }
    return;
  }
  for (const auto& [k, v] : wanted) {
    const rapidjson::Value* current = json::member(annotations, k);
    const std::string path = "/metadata/annotations/" + escapePointerToken(k);
    if (current == nullptr) {
      out.add(path, json::quoteString(v));
    } else if (json::view(*current) != v) {
      out.replace(path, json::quoteString(v));
    }
  }
}

}  // namespace gpua::engine
