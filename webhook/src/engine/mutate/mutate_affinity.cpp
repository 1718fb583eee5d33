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
using AppendWriter = rapidjson::Writer<json::StringAppender>;

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

// Appends the new nodeSelectorTerms to `out`; `changed` tells whether it differs from `terms`.
void appendTerms(std::string& out, const rapidjson::Value* terms,
                 const std::vector<const policy::Pool*>& pools,
                 const rapidjson::Value* nodeSelector, bool& changed) {
  json::StringAppender stream{out};
  AppendWriter w(stream);
  w.StartArray();
  const auto satisfied = [&](const rapidjson::Value* term) {
    for (const auto* pool : pools)
      if (termHasPool(term, nodeSelector, *pool)) return true;
    return false;
  };
  if (terms == nullptr || terms->Empty()) {
    // spec.nodeSelector alone may already place the pod in a pool.
    changed = !satisfied(nullptr);
    for (const auto* pool : pools) writeTermWithPool(w, nullptr, *pool, nodeSelector);
  } else {
    for (const auto& term : terms->GetArray()) {
      if (satisfied(&term)) {
        term.Accept(w);  // already narrowed to one of the pools (our own earlier output)
        continue;
      }
      changed = true;
      for (const auto* pool : pools) writeTermWithPool(w, &term, *pool, nodeSelector);
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
  std::vector<const policy::Pool*> pools;
  pools.reserve(ctx.pools.size());
  for (const auto* pool : ctx.pools)
    if (pool->selectsNodes()) pools.push_back(pool);
  if (pools.empty()) return;
  const auto* affinity = json::objectMember(ctx.pod.spec, "affinity");
  const auto* nodeAffinity = json::objectMember(affinity, "nodeAffinity");
  const auto* required = json::objectMember(nodeAffinity, kRequired);
  const auto* terms = json::arrayMember(required, "nodeSelectorTerms");
  // How many missing parents the value must create (3: affinity, ..., 0: the array itself).
  const std::size_t wraps = affinity == nullptr       ? 3
                            : nodeAffinity == nullptr ? 2
                            : required == nullptr     ? 1
                                                      : 0;
  // The value is written in one pass into one string: wrappers, terms, closing braces.
  std::string value;
  value.reserve(512);
  for (std::size_t i = 3 - wraps; i < 3; ++i) value += kWrapOpen[i];
  bool changed = false;
  appendTerms(value, terms, pools, json::objectMember(ctx.pod.spec, "nodeSelector"), changed);
  if (!changed) return;
  value.append(wraps, '}');
  constexpr std::string_view kRequiredPath =
      "/spec/affinity/nodeAffinity/requiredDuringSchedulingIgnoredDuringExecution";
  if (affinity == nullptr) {
    out.add("/spec/affinity", std::move(value));
  } else if (nodeAffinity == nullptr) {
    out.add("/spec/affinity/nodeAffinity", std::move(value));
  } else if (required == nullptr) {
    out.add(std::string(kRequiredPath), std::move(value));
  } else {
    std::string path;
    path.reserve(kRequiredPath.size() + 18);
    path.append(kRequiredPath).append("/nodeSelectorTerms");
    if (terms == nullptr) {
      out.add(std::move(path), std::move(value));
    } else {
      out.replace(std::move(path), std::move(value));
    }
  }
  std::string change = "node affinity pool ";
  const std::size_t namesStart = change.size();
  for (const auto* pool : pools) {
    if (change.size() > namesStart) change += '/';  // as a join that skips empty prefixes
    change += pool->name;
  }
  out.changes.push_back(std::move(change));
}

}  // namespace gpua::engine
