#include "engine/pod/pod_placement.hpp"

#include "engine/core/json_util.hpp"

namespace gpua::engine {

namespace {

constexpr std::string_view kRequired = "requiredDuringSchedulingIgnoredDuringExecution";

// One matchExpressions/matchFields entry; false when it cannot be read.
bool readRequirement(const rapidjson::Value& e, bool field, NodeRequirement& out) {
  const auto op = nodeOperatorOf(json::stringMember(&e, "operator"));
  const rapidjson::Value* key = json::member(&e, "key");
  if (!op || key == nullptr || !key->IsString()) return false;
  out.key = json::view(*key);
  out.op = *op;
  out.field = field;
  const rapidjson::Value* values = json::member(&e, "values");
  if (values == nullptr || values->IsNull()) return true;
  if (!values->IsArray()) return false;
  out.values.reserve(values->Size());
  for (const auto& v : values->GetArray()) {
    if (!v.IsString()) return false;
    out.values.push_back(json::view(v));
  }
  return true;
}

void readList(const rapidjson::Value& term, std::string_view name, bool field, PlacementTerm& out) {
  const rapidjson::Value* list = json::member(&term, name);
  if (list == nullptr || list->IsNull()) return;
  if (!list->IsArray()) {
    out.decidable = false;
    return;
  }
  for (const auto& e : list->GetArray()) {
    PodRequirement r;
    if (!e.IsObject() || !readRequirement(e, field, r.req)) {
      out.decidable = false;
      continue;
    }
    out.requirements.push_back(std::move(r));
  }
}

void readNodeSelector(const PodView& pod, PodPlacement& out) {
  const rapidjson::Value* selector = json::member(pod.spec, "nodeSelector");
  if (selector == nullptr || selector->IsNull()) return;
  if (!selector->IsObject()) {
    out.alwaysDecidable = false;
    return;
  }
  for (auto it = selector->MemberBegin(); it != selector->MemberEnd(); ++it) {
    if (!it->value.IsString()) {
      out.alwaysDecidable = false;
      continue;
    }
    out.always.push_back({{json::view(it->name), NodeOperator::In, {json::view(it->value)}, false},
                          PlacementSource::NodeSelector});
  }
}

void readTerms(const PodView& pod, PodPlacement& out) {
  const auto* node = json::objectMember(json::objectMember(pod.spec, "affinity"), "nodeAffinity");
  const auto* terms = json::arrayMember(json::objectMember(node, kRequired), "nodeSelectorTerms");
  if (terms == nullptr) return;
  for (rapidjson::SizeType i = 0; i < terms->Size(); ++i) {
    const rapidjson::Value& term = (*terms)[i];
    PlacementTerm t;
    if (!term.IsObject()) {
      t.decidable = false;
    } else {
      readList(term, "matchExpressions", false, t);
      readList(term, "matchFields", true, t);
      if (t.decidable && t.requirements.empty()) continue;
    }
    out.terms.push_back(std::move(t));
    out.termIndex.push_back(i);
  }
}

}  // namespace

PodPlacement podPlacementOf(const PodView& pod) {
  PodPlacement out;
  if (pod.spec == nullptr) return out;
  readNodeSelector(pod, out);
  out.nodeName = pod.specString("nodeName");
  if (!out.nodeName.empty())
    out.always.push_back(
        {{"metadata.name", NodeOperator::In, {out.nodeName}, true}, PlacementSource::NodeName});
  readTerms(pod, out);
  return out;
}

std::vector<NodeRequirement> poolRequirements(const policy::Pool& pool) {
  std::vector<NodeRequirement> out;
  out.reserve(pool.nodeSelector.size() + pool.matchExpressions.size());
  // nodeSelector entries (In [value]) and matchExpressions with every operator.
  pool.forEachRequirement([&](const policy::NodeRequirementRef& r) {
    NodeRequirement req{r.key, r.op, {}, false};
    req.values.reserve(r.values.size());
    for (const auto& v : r.values) req.values.emplace_back(v);
    out.push_back(std::move(req));
  });
  return out;
}

}  // namespace gpua::engine
