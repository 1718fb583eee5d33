#include "engine/json_util.hpp"
#include "engine/mutation.hpp"

namespace gpua::engine {

namespace {

constexpr std::string_view kRequired = "requiredDuringSchedulingIgnoredDuringExecution";

bool hasExpression(const rapidjson::Value& term, std::string_view key, std::string_view value) {
  const rapidjson::Value* exprs = json::arrayMember(&term, "matchExpressions");
  if (exprs == nullptr) return false;
  for (const auto& e : exprs->GetArray()) {
    const rapidjson::Value* values = json::arrayMember(&e, "values");
    if (json::stringMember(&e, "key") == key && json::stringMember(&e, "operator") == "In" &&
        values != nullptr && values->Size() == 1 && json::view((*values)[0]) == value)
      return true;
  }
  return false;
}

bool termHasPool(const rapidjson::Value& term, const policy::Pool& pool) {
  for (const auto& [k, v] : pool.nodeSelector)
    if (!hasExpression(term, k, v)) return false;
  return true;
}

// The pool's expressions not already in `term` (null term = all of them).
void writePoolExpressions(json::Writer& w, const policy::Pool& pool, const rapidjson::Value* term) {
  for (const auto& [k, v] : pool.nodeSelector) {
    if (term != nullptr && hasExpression(*term, k, v)) continue;
    w.StartObject();
    w.Key("key");
    json::writeString(w, k);
    w.Key("operator");
    w.String("In");
    w.Key("values");
    w.StartArray();
    json::writeString(w, v);
    w.EndArray();
    w.EndObject();
  }
}

// `term` AND `pool`: the term's members as they are, matchExpressions extended.
void writeTermWithPool(json::Writer& w, const rapidjson::Value* term, const policy::Pool& pool) {
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
      writePoolExpressions(w, pool, term);
      w.EndArray();
      wroteExpressions = true;
    }
  }
  if (!wroteExpressions) {
    w.Key("matchExpressions");
    w.StartArray();
    writePoolExpressions(w, pool, term);
    w.EndArray();
  }
  w.EndObject();
}

// The new nodeSelectorTerms; `changed` tells whether it differs from `terms`.
std::string buildTerms(const rapidjson::Value* terms, const std::vector<const policy::Pool*>& pools,
                       bool& changed) {
  rapidjson::StringBuffer buffer;
  json::Writer w(buffer);
  w.StartArray();
  if (terms == nullptr || terms->Empty()) {
    changed = true;
    for (const auto* pool : pools) writeTermWithPool(w, nullptr, *pool);
  } else {
    for (const auto& term : terms->GetArray()) {
      bool satisfied = false;
      for (const auto* pool : pools) satisfied = satisfied || termHasPool(term, *pool);
      if (satisfied) {
        term.Accept(w);  // already narrowed to one of the pools (our own earlier output)
        continue;
      }
      changed = true;
      for (const auto* pool : pools) writeTermWithPool(w, &term, *pool);
    }
  }
  w.EndArray();
  return std::string(buffer.GetString(), buffer.GetSize());
}

std::string wrap(std::string_view key, const std::string& inner) {
  return "{" + json::quoteString(key) + ":" + inner + "}";
}

}  // namespace

void mutateAffinity(const MutationContext& ctx, MutationOutput& out) {
  std::vector<const policy::Pool*> pools;
  for (const auto* pool : ctx.pools)
    if (!pool->nodeSelector.empty()) pools.push_back(pool);
  if (pools.empty()) return;
  const auto* affinity = json::objectMember(ctx.pod.spec, "affinity");
  const auto* nodeAffinity = json::objectMember(affinity, "nodeAffinity");
  const auto* required = json::objectMember(nodeAffinity, kRequired);
  const auto* terms = json::arrayMember(required, "nodeSelectorTerms");
  bool changed = false;
  const std::string newTerms = buildTerms(terms, pools, changed);
  if (!changed) return;
  const std::string requiredPath = "/spec/affinity/nodeAffinity/" + std::string(kRequired);
  if (affinity == nullptr) {
    out.add("/spec/affinity",
            wrap("nodeAffinity", wrap(kRequired, wrap("nodeSelectorTerms", newTerms))));
  } else if (nodeAffinity == nullptr) {
    out.add("/spec/affinity/nodeAffinity", wrap(kRequired, wrap("nodeSelectorTerms", newTerms)));
  } else if (required == nullptr) {
    out.add(requiredPath, wrap("nodeSelectorTerms", newTerms));
  } else if (terms == nullptr) {
    out.add(requiredPath + "/nodeSelectorTerms", newTerms);
  } else {
    out.replace(requiredPath + "/nodeSelectorTerms", newTerms);
  }
  std::string names;
  for (const auto* pool : pools) names += (names.empty() ? "" : "/") + pool->name;
  out.changes.push_back("node affinity pool " + names);
}

}  // namespace gpua::engine
