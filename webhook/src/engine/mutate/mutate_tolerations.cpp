#include "engine/core/json_util.hpp"
#include "engine/core/toleration.hpp"
#include "engine/mutate/mutation.hpp"

namespace gpua::engine {

namespace {

bool tolerates(const rapidjson::Value& tol, const policy::Taint& taint) {
  return toleratesTaint({json::stringMember(&tol, "key"), json::stringMember(&tol, "operator"),
                         json::stringMember(&tol, "value"), json::stringMember(&tol, "effect")},
                        taint);
}

bool sameTaint(const policy::Taint& a, const policy::Taint& b) {
  return a.key == b.key && a.value == b.value && a.effect == b.effect;
}

void appendToleration(std::string& out, const policy::Taint& taint) {
  json::StringAppender stream{out};
  rapidjson::Writer<json::StringAppender> w(stream);
  w.StartObject();
  w.Key("key");
  w.String(taint.key.data(), static_cast<rapidjson::SizeType>(taint.key.size()));
  w.Key("operator");
  if (taint.value.empty()) {
    w.String("Exists");
  } else {
    w.String("Equal");
    w.Key("value");
    w.String(taint.value.data(), static_cast<rapidjson::SizeType>(taint.value.size()));
  }
  if (!taint.effect.empty()) {
    w.Key("effect");
    w.String(taint.effect.data(), static_cast<rapidjson::SizeType>(taint.effect.size()));
  }
  w.EndObject();
}

bool podToleratesTaint(const rapidjson::Value* tolerations, const policy::Taint& taint) {
  if (tolerations == nullptr) return false;
  for (const auto& tol : tolerations->GetArray())
    if (tol.IsObject() && tolerates(tol, taint)) return true;
  return false;
}

}  // namespace

std::string tolerationJson(const policy::Taint& taint) {
  std::string out;
  appendToleration(out, taint);
  return out;
}

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
    list.reserve(96 * needed.size() + 2);
    for (const auto* t : needed) {
      if (list.size() > 1) list += ',';
      appendToleration(list, *t);
    }
    list += ']';
    out.add("/spec/tolerations", std::move(list));
  } else {
    for (const auto* t : needed) {
      std::string value;
      value.reserve(96);
      appendToleration(value, *t);
      out.add("/spec/tolerations/-", std::move(value));
    }
  }
  for (const auto* t : needed) out.changes.push_back("toleration " + t->key);
}

}  // namespace gpua::engine
