#include "inventory/node_decode.hpp"

#include <algorithm>
#include <fstream>
#include <limits>
#include <sstream>

#include "engine/pod/resource_quantity.hpp"
#include "kube/json.hpp"
#include "kube/json_parse.hpp"

namespace gpua::inventory {

namespace json = kube::json;

namespace {

constexpr int64_t kMaxMillis = std::numeric_limits<int64_t>::max();

std::optional<int64_t> millisOf(const rapidjson::Value* v) {
  if (v == nullptr) return std::nullopt;
  if (v->IsString()) return quantityMillis({v->GetString(), v->GetStringLength()});
  if (v->IsInt64() && v->GetInt64() >= 0 && v->GetInt64() <= kMaxMillis / 1000)
    return v->GetInt64() * 1000;
  return std::nullopt;
}

std::vector<policy::Taint> taintsOf(const rapidjson::Value& node) {
  std::vector<policy::Taint> taints;
  const auto* t = json::member(json::member(node, "spec"), "taints");
  if (t == nullptr || !t->IsArray()) return taints;
  for (const auto& taint : t->GetArray()) {
    const auto key = json::string(json::member(taint, "key"));
    if (key.empty()) continue;
    taints.push_back({std::string(key), std::string(json::string(json::member(taint, "value"))),
                      std::string(json::string(json::member(taint, "effect")))});
  }
  return taints;
}

bool readyOf(const rapidjson::Value& node) {
  const auto* conditions = json::member(json::member(node, "status"), "conditions");
  if (conditions == nullptr || !conditions->IsArray()) return false;
  for (const auto& c : conditions->GetArray())
    if (json::string(json::member(c, "type")) == "Ready")
      return json::string(json::member(c, "status")) == "True";
  return false;
}

void readAllocatable(const rapidjson::Value& node, const NodeResourceFilter& filter,
                     engine::NodeSupply& out) {
  const auto* a = json::member(json::member(node, "status"), "allocatable");
  if (a == nullptr || !a->IsObject()) return;
  for (const auto& m : a->GetObject()) {
    const std::string_view name(m.name.GetString(), m.name.GetStringLength());
    if (name == "cpu") {
      out.cpuMillis = millisOf(&m.value).value_or(0);
    } else if (name == "memory") {
      out.memoryBytes = millisOf(&m.value).value_or(0) / 1000;
    } else if (filter.keeps(name)) {
      // Extended resources are whole numbers; a fractional one is malformed, not rounded. So is
      // a count no node has (1.8e16 GPUs was taken into the supply): it would make every
      // capacity check pass and every pool figure meaningless.
      const auto millis = millisOf(&m.value);
      if (millis && *millis % 1000 == 0 && *millis >= 0 && *millis / 1000 <= kMaxDeviceUnitsPerNode)
        out.allocatable.emplace(name, *millis / 1000);
    }
  }
}

std::string readFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw NodesFileError(path + ": cannot read nodes file");
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// Items without a kind are nodes unless the list they came in says otherwise (a PodList).
void collect(const rapidjson::Value& v, bool kindlessAreNodes, const NodeResourceFilter& filter,
             std::vector<engine::NodeSupply>& out) {
  if (v.IsArray()) {
    for (const auto& item : v.GetArray()) collect(item, kindlessAreNodes, filter, out);
    return;
  }
  if (!v.IsObject()) return;
  const auto kind = json::string(json::member(v, "kind"));
  if (const auto* items = json::member(v, "items"); items != nullptr && items->IsArray()) {
    const bool nodes = kind.empty() || kind == "List" || kind == "NodeList";
    for (const auto& item : items->GetArray()) collect(item, nodes, filter, out);
    return;
  }
  if (kind != "Node" && !(kindlessAreNodes && kind.empty())) return;
  if (auto node = decodeNode(v, filter)) out.push_back(std::move(*node));
}

}  // namespace

bool NodeResourceFilter::keeps(std::string_view resource) const {
  return resource.starts_with("nvidia.com/") ||
         std::binary_search(extra.begin(), extra.end(), resource);
}

NodeResourceFilter nodeResourceFilter(const policy::PolicySet& policy) {
  NodeResourceFilter f;
  for (const auto& pool : policy.pools) f.extra.push_back(pool.resource);
  for (const auto& cls : policy.classes)
    if (!cls.resolvedResource.empty()) f.extra.push_back(cls.resolvedResource);
  std::sort(f.extra.begin(), f.extra.end());
  f.extra.erase(std::unique(f.extra.begin(), f.extra.end()), f.extra.end());
  return f;
}

// One grammar for every quantity the project reads: the engine's exact parser.
std::optional<int64_t> quantityMillis(std::string_view s) {
  return engine::quantityMilli(s);
}

std::optional<engine::NodeSupply> decodeNode(const rapidjson::Value& node,
                                             const NodeResourceFilter& filter) {
  if (!node.IsObject()) return std::nullopt;
  const auto name = json::path(node, "metadata", "name");
  if (name.empty()) return std::nullopt;
  engine::NodeSupply out;
  out.name = std::string(name);
  out.labels = json::labelsOf(node);
  out.taints = taintsOf(node);
  out.ready = readyOf(node);
  const auto* unschedulable = json::member(json::member(node, "spec"), "unschedulable");
  out.unschedulable =
      unschedulable != nullptr && unschedulable->IsBool() && unschedulable->GetBool();
  readAllocatable(node, filter, out);
  return out;
}

std::vector<engine::NodeSupply> nodesFromList(const rapidjson::Value& list,
                                              const NodeResourceFilter& filter) {
  std::vector<engine::NodeSupply> out;
  collect(list, true, filter, out);
  return out;
}

std::vector<engine::NodeSupply> loadNodesFile(const std::string& path,
                                              const NodeResourceFilter& filter) {
  const auto text = readFile(path);
  rapidjson::Document doc;
  if (const auto parsed = kube::parseJson(text, doc); !parsed.ok())
    throw NodesFileError(path + ": " + parsed.message);
  if (!doc.IsObject() && !doc.IsArray())
    throw NodesFileError(path + ": expected a JSON list of nodes (kubectl get nodes -o json)");
  return nodesFromList(doc, filter);
}

}  // namespace gpua::inventory
