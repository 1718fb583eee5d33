#include "engine/core/json_util.hpp"
#include "engine/core/node_requirements.hpp"
#include "engine/mutate/mutation.hpp"

namespace gpua::engine {

namespace {

constexpr std::string_view kRequired = "requiredDuringSchedulingIgnoredDuringExecution";

// A label requirement of the pod's own, as views into the pod.
struct PodRequirement {
  policy::NodeOperator op;
  std::vector<std::string_view> values;
};

std::optional<PodRequirement> podRequirement(const rapidjson::Value& e) {
  const auto op = nodeOperatorOf(json::stringMember(&e, "operator"));
  if (!op) return std::nullopt;
  PodRequirement r{*op, {}};
  if (const rapidjson::Value* values = json::arrayMember(&e, "values"))
    for (const auto& v : values->GetArray()) {
      if (!v.IsString()) return std::nullopt;  // the apiserver refuses it: conclude nothing
      r.values.push_back(json::view(v));
    }
  return r;
}

// What the pool asks of the nodes, seen from the pod: `req` holds on every node the pod can
// reach through `term` and spec.nodeSelector (which the scheduler ANDs with every term) when one
// requirement there implies it (the same one, or `k In [v]` / nodeSelector k: v for a pool's
// `k Exists`...). Require mode demands exactly what this leaves out.
bool implied(const rapidjson::Value* term, const rapidjson::Value* nodeSelector,
             const policy::NodeRequirementRef& req) {
  if (const rapidjson::Value* v = json::member(nodeSelector, req.key);
      v != nullptr && v->IsString())
    if (req.matchesValue(true, json::view(*v))) return true;
  const rapidjson::Value* exprs = json::arrayMember(term, "matchExpressions");
  if (exprs == nullptr) return false;
  for (const auto& e : exprs->GetArray()) {
    if (json::stringMember(&e, "key") != req.key) continue;
    const auto have = podRequirement(e);
    if (have && policy::requirementImplies(have->op, have->values, req.op, req.values)) return true;
  }
  return false;
}

bool termHasPool(const rapidjson::Value* term, const rapidjson::Value* nodeSelector,
                 const policy::Pool& pool) {
  bool all = true;
  pool.forEachRequirement(
      [&](const policy::NodeRequirementRef& r) { all = all && implied(term, nodeSelector, r); });
  return all;
}

// The pool's expressions not already in `term` (null term = all of them).
using json::AppendWriter;

void writeString(AppendWriter& w, std::string_view s) {
  w.String(s.data(), static_cast<rapidjson::SizeType>(s.size()));
}

void writePoolExpressions(AppendWriter& w, const policy::Pool& pool, const rapidjson::Value* term,
                          const rapidjson::Value* nodeSelector) {
  pool.forEachRequirement([&](const policy::NodeRequirementRef& r) {
    if (implied(term, nodeSelector, r)) return;
    w.StartObject();
    w.Key("key");
    writeString(w, r.key);
    w.Key("operator");
    w.String(policy::nodeOperatorName(r.op));
    if (!r.values.empty()) {  // Exists / DoesNotExist take none
      w.Key("values");
      w.StartArray();
      for (const auto& v : r.values) writeString(w, v);
      w.EndArray();
    }
    w.EndObject();
  });
}

// `term` AND `pool`: the term's members as they are, matchExpressions extended.
void writeTermWithPool(AppendWriter& w, const rapidjson::Value* term, const policy::Pool& pool,
                       const rapidjson::Value* nodeSelector) {
  w.StartObject();
  bool wroteExpressions = false;
  if (term != nullptr) {
    for (auto it = term->MemberBegin(); it != term->MemberEnd(); ++it) {
      const bool expressions = json::view(it->name) == "matchExpressions";
      if (expressions && !it->value.IsArray()) continue;  // null: ours replaces it
      w.Key(it->name.GetString(), it->name.GetStringLength());
      if (!expressions) {
        it->value.Accept(w);
        continue;
      }
      w.StartArray();
      for (const auto& e : it->value.GetArray()) e.Accept(w);
      writePoolExpressions(w, pool, term, nodeSelector);
      w.EndArray();
      wroteExpressions = true;
    }
  }
  if (!wroteExpressions) {
    w.Key("matchExpressions");
    w.StartArray();
    writePoolExpressions(w, pool, term, nodeSelector);
    w.EndArray();
  }
  w.EndObject();
}

// Calls fn(pool) for each of the class's pools that selects nodes.
template <typename Fn>
void forEachPlacingPool(const MutationContext& ctx, Fn fn) {
  for (const auto* pool : ctx.pools)
    if (pool->selectsNodes()) fn(*pool);
}

// Appends the new nodeSelectorTerms to `out`; `changed` tells whether it differs from `terms`.
void appendTerms(std::string& out, const rapidjson::Value* terms, const MutationContext& ctx,
                 const rapidjson::Value* nodeSelector, bool& changed) {
  AppendWriter w(out);
  w.StartArray();
  const auto satisfied = [&](const rapidjson::Value* term) {
    bool any = false;
    forEachPlacingPool(
        ctx, [&](const policy::Pool& pool) { any = any || termHasPool(term, nodeSelector, pool); });
    return any;
  };
  const auto writeWithPools = [&](const rapidjson::Value* term) {
    forEachPlacingPool(
        ctx, [&](const policy::Pool& pool) { writeTermWithPool(w, term, pool, nodeSelector); });
  };
  if (terms == nullptr || terms->Empty()) {
    // spec.nodeSelector alone may already place the pod in a pool.
    changed = !satisfied(nullptr);
    writeWithPools(nullptr);
  } else {
    for (const auto& term : terms->GetArray()) {
      if (satisfied(&term)) {
        term.Accept(w);  // already narrowed to one of the pools (our own earlier output)
        continue;
      }
      changed = true;
      writeWithPools(&term);
    }
  }
  w.EndArray();
}

// The objects a new nodeSelectorTerms array is wrapped in, outermost first, when its parents
// are missing (the patcher cannot add into a missing parent). Plain ASCII keys: no escaping.
constexpr std::string_view kWrapOpen[] = {
    R"({"nodeAffinity":)",
    R"({"requiredDuringSchedulingIgnoredDuringExecution":)",
    R"({"nodeSelectorTerms":)",
};

}  // namespace

void mutateAffinity(const MutationContext& ctx, MutationOutput& out) {
  bool places = false;
  forEachPlacingPool(ctx, [&](const policy::Pool&) { places = true; });
  if (!places) return;
  const auto* affinity = json::objectMember(ctx.pod.spec, "affinity");
  const auto* nodeAffinity = json::objectMember(affinity, "nodeAffinity");
  const auto* required = json::objectMember(nodeAffinity, kRequired);
  const auto* terms = json::arrayMember(required, "nodeSelectorTerms");
  // How many missing parents the value must create (3: affinity, ..., 0: the array itself).
  const std::size_t wraps = affinity == nullptr       ? 3
                            : nodeAffinity == nullptr ? 2
                            : required == nullptr     ? 1
                                                      : 0;
  constexpr std::string_view kTermsPath =
      "/spec/affinity/nodeAffinity/requiredDuringSchedulingIgnoredDuringExecution/"
      "nodeSelectorTerms";
  constexpr std::string_view kParentPaths[] = {
      "/spec/affinity/nodeAffinity/requiredDuringSchedulingIgnoredDuringExecution",
      "/spec/affinity/nodeAffinity", "/spec/affinity"};
  const std::string_view path = wraps == 0 ? kTermsPath : kParentPaths[wraps - 1];
  const bool replaces = wraps == 0 && terms != nullptr;
  // The value is written in one pass into the op: wrappers, terms, closing braces. It is taken
  // back when the terms already hold the pools.
  std::string& value =
      out.op(replaces ? PatchOp::Kind::Replace : PatchOp::Kind::Add, path).valueJson;
  for (std::size_t i = 3 - wraps; i < 3; ++i) value += kWrapOpen[i];
  bool changed = false;
  appendTerms(value, terms, ctx, json::objectMember(ctx.pod.spec, "nodeSelector"), changed);
  if (!changed) return out.patch.pop_back();
  value.append(wraps, '}');
  std::string& change = out.changes.next();
  change += "node affinity pool ";
  const std::size_t namesStart = change.size();
  forEachPlacingPool(ctx, [&](const policy::Pool& pool) {
    if (change.size() > namesStart) change += '/';  // as a join that skips empty prefixes
    change += pool.name;
  });
}

}  // namespace gpua::engine
