#include "engine/core/json_util.hpp"
#include "engine/mutate/mutation.hpp"

namespace gpua::engine {

namespace {

// "<policy name>@<revision>", the policy annotation's value, in parts (no string built for it).
struct PolicyValue {
  std::string_view name, revision;
  bool equals(std::string_view v) const {
    return v.size() == name.size() + 1 + revision.size() && v.starts_with(name) &&
           v[name.size()] == '@' && v.ends_with(revision);
  }
  void appendQuotedTo(std::string& out) const {
    out += '"';
    json::appendEscaped(out, name);
    out += '@';
    json::appendEscaped(out, revision);
    out += '"';
  }
};

}  // namespace

void mutateAnnotations(const MutationContext& ctx, MutationOutput& out) {
  const PolicyValue policyValue{ctx.policy.name, ctx.policy.revision};
  const rapidjson::Value* annotations = json::objectMember(ctx.pod.metadata, "annotations");
  if (annotations == nullptr) {
    // Written in one pass, wrapped in {"annotations":...} when metadata itself is missing.
    const bool wrap = ctx.pod.metadata == nullptr;
    std::string& object =
        out.op(PatchOp::Kind::Add, wrap ? "/metadata" : "/metadata/annotations").valueJson;
    if (wrap) object += "{\"annotations\":";
    object += '{';
    json::appendQuoted(object, kClassAnnotation);
    object += ':';
    json::appendQuoted(object, ctx.cls.name);
    object += ',';
    json::appendQuoted(object, kPolicyAnnotation);
    object += ':';
    policyValue.appendQuotedTo(object);
    object += '}';
    if (wrap) object += '}';
    return;
  }
  const auto set = [&](std::string_view key, const rapidjson::Value* current) -> std::string& {
    PatchOp& op = out.op(current == nullptr ? PatchOp::Kind::Add : PatchOp::Kind::Replace,
                         "/metadata/annotations/");
    appendPointerToken(op.path, key);
    return op.valueJson;
  };
  const rapidjson::Value* cls = json::member(annotations, kClassAnnotation);
  if (cls == nullptr || json::view(*cls) != ctx.cls.name)
    json::appendQuoted(set(kClassAnnotation, cls), ctx.cls.name);
  const rapidjson::Value* policy = json::member(annotations, kPolicyAnnotation);
  if (policy == nullptr || !policyValue.equals(json::view(*policy)))
    policyValue.appendQuotedTo(set(kPolicyAnnotation, policy));
}

}  // namespace gpua::engine
