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
  json::AppendWriter w(out);
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

// Calls fn(taint) for each pool taint the pod does not tolerate, each (key, value, effect) once,
// in pool order. The taints are few: looking at the earlier ones again costs less than a list.
template <typename Fn>
void forEachNeededTaint(const MutationContext& ctx, const rapidjson::Value* existing, Fn fn) {
  const auto needed = [&](const policy::Taint& t) { return !podToleratesTaint(existing, t); };
  // Whether a needed taint equal to pools[p].taints[t] comes before it.
  const auto seenBefore = [&](std::size_t p, std::size_t t) {
    const policy::Taint& at = ctx.pools[p]->taints[t];
    for (std::size_t i = 0; i <= p; ++i) {
      const auto& taints = ctx.pools[i]->taints;
      for (std::size_t j = 0; j < (i == p ? t : taints.size()); ++j)
        if (sameTaint(taints[j], at) && needed(taints[j])) return true;
    }
    return false;
  };
  for (std::size_t p = 0; p < ctx.pools.size(); ++p)
    for (std::size_t t = 0; t < ctx.pools[p]->taints.size(); ++t)
      if (needed(ctx.pools[p]->taints[t]) && !seenBefore(p, t)) fn(ctx.pools[p]->taints[t]);
}

void mutateTolerations(const MutationContext& ctx, MutationOutput& out) {
  const rapidjson::Value* existing = json::arrayMember(ctx.pod.spec, "tolerations");
  // Without a list the pod gets one op holding them all, opened at the first needed taint; with
  // one, an op per taint appended to it. Only changes are added while `list` is written.
  std::string* list = nullptr;
  forEachNeededTaint(ctx, existing, [&](const policy::Taint& t) {
    if (existing != nullptr) {
      appendToleration(out.op(PatchOp::Kind::Add, "/spec/tolerations/-").valueJson, t);
    } else {
      if (list == nullptr) {
        list = &out.op(PatchOp::Kind::Add, "/spec/tolerations").valueJson;
        *list += '[';
      } else {
        *list += ',';
      }
      appendToleration(*list, t);
    }
    out.change("toleration ", t.key);
  });
  if (list != nullptr) *list += ']';
}

}  // namespace gpua::engine
