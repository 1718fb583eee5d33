#include "engine/json_util.hpp"
#include "engine/mutation.hpp"

namespace gpua::engine {

namespace {

// Kubernetes' Toleration.ToleratesTaint.
bool tolerates(const rapidjson::Value& tol, const policy::Taint& taint) {
  const std::string_view effect = json::stringMember(&tol, "effect");
  if (!effect.empty() && effect != taint.effect) return false;
  const std::string_view key = json::stringMember(&tol, "key");
  const std::string_view op = json::stringMember(&tol, "operator");
  if (key.empty()) return op == "Exists";
  if (key != taint.key) return false;
  if (op == "Exists") return true;
  return (op.empty() || op == "Equal") && json::stringMember(&tol, "value") == taint.value;
}

bool sameTaint(const policy::Taint& a, const policy::Taint& b) {
  return a.key == b.key && a.value == b.value && a.effect == b.effect;
}

std::string tolerationJson(const policy::Taint& taint) {
  rapidjson::StringBuffer buffer;
  json::Writer w(buffer);
  w.StartObject();
  w.Key("key");
  json::writeString(w, taint.key);
  w.Key("operator");
  if (taint.value.empty()) {
    w.String("Exists");
  } else {
    w.String("Equal");
    w.Key("value");
    json::writeString(w, taint.value);
  }
  if (!taint.effect.empty()) {
    w.Key("effect");
    json::writeString(w, taint.effect);
  }
  w.EndObject();
  return std::string(buffer.GetString(), buffer.GetSize());
}

bool podToleratesTaint(const rapidjson::Value* tolerations, const policy::Taint& taint) {
  if (tolerations == nullptr) return false;
  for (const auto& tol : tolerations->GetArray())
    if (tol.IsObject() && tolerates(tol, taint)) return true;
  return false;
}

}  // namespace

void mutateTolerations(const MutationContext& ctx, MutationOutput& out) {
  const rapidjson::Value* existing = json::arrayMember(ctx.pod.spec, "tolerations");
  std::vector<const policy::Taint*> needed;
  for (const auto* pool : ctx.pools)
    for (const auto& taint : pool->taints) {
      if (podToleratesTaint(existing, taint)) continue;
      bool duplicate = false;
      for (const auto* t : needed) duplicate = duplicate || sameTaint(*t, taint);
      if (!duplicate) needed.push_back(&taint);
    }
  if (needed.empty()) return;
  if (existing == nullptr) {
    std::string list = "[";
    for (const auto* t : needed) list += (list.size() > 1 ? "," : "") + tolerationJson(*t);
    out.add("/spec/tolerations", list + "]");
  } else {
    for (const auto* t : needed) out.add("/spec/tolerations/-", tolerationJson(*t));
  }
  for (const auto* t : needed) out.changes.push_back("toleration " + t->key);
}

}  // namespace gpua::engine
