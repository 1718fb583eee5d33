// The cluster client's decoders of watch streams and list pages, without the network: each
// input line is what the API server sends, either one watch event ({"type":..,"object":..}) or
// one list page ({"kind":..List,"items":[..],"metadata":{..}}), decoded the way the client
// decodes it and fed to both ledgers: pods to the usage ledger and the supply ledger,
// namespaces to the usage ledger, nodes (kind Node / NodeList) to the supply ledger, whose
// node pages also go through the CLI's nodes-file decoder. Oracles:
//   - no crash, and usage never goes negative, whatever order of adds, modifications and
//     deletions arrives;
//   - no node reads negative allocatable, CPU or memory, and no node has negative allocated;
//   - events are the same as a relist: ledgers that saw the stream agree with fresh ledgers
//     given one list of the pods still there (usage per namespace, allocated per node, the
//     pending queue);
//   - the per-pool fold (engine::summarizeSupply) keeps its counts consistent.
#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <string>
#include <string_view>

#include "inventory/ledger.hpp"
#include "inventory/node_decode.hpp"
#include "inventory/supply_ledger.hpp"
#include "policy/loader.hpp"

namespace {

using gpua::inventory::EventType;
using gpua::inventory::Ledger;
using gpua::inventory::SupplyLedger;

[[noreturn]] void fail(const std::string& what) {
  std::fprintf(stderr, "watch oracle: %s\n", what.c_str());
  std::abort();
}

std::shared_ptr<const gpua::policy::PolicySet> shippedPolicy() {
  static const auto policy = [] {
    auto loaded = gpua::policy::loadPolicyPaths({GPUA_POLICIES_DIR});
    if (!loaded.ok()) fail(std::string("cannot load ") + GPUA_POLICIES_DIR);
    return loaded.policy;
  }();
  return policy;
}

std::string_view kindOf(const rapidjson::Value& v) {
  const auto it = v.FindMember("kind");
  return it != v.MemberEnd() && it->value.IsString()
             ? std::string_view(it->value.GetString(), it->value.GetStringLength())
             : std::string_view();
}

std::string toJson(const rapidjson::Value& v) {
  rapidjson::StringBuffer b;
  rapidjson::Writer<rapidjson::StringBuffer> w(b);
  v.Accept(w);
  return {b.GetString(), b.GetSize()};
}

// What the stream left in the cluster: every pod by the ledgers' key, as its last event or list
// showed it. The relist oracle lists exactly these.
class PodShadow {
 public:
  void list(const rapidjson::Value& items) {
    pods_.clear();
    if (items.IsArray())
      for (const auto& pod : items.GetArray()) put(pod);
  }
  void event(EventType type, const rapidjson::Value& pod) {
    if (!isPod(pod)) return;
    if (type == EventType::Deleted)
      pods_.erase(gpua::inventory::podKeyOf(pod));
    else
      put(pod);
  }
  // The pods still there as one list page.
  rapidjson::Document items() const {
    rapidjson::Document out(rapidjson::kArrayType);
    for (const auto& [key, json] : pods_) {
      rapidjson::Document pod;
      pod.Parse(json.data(), json.size());
      out.PushBack(rapidjson::Value(pod, out.GetAllocator()), out.GetAllocator());
    }
    return out;
  }

 private:
  static bool isPod(const rapidjson::Value& v) { return gpua::inventory::isPodObject(v); }
  void put(const rapidjson::Value& pod) {
    if (isPod(pod)) pods_.insert_or_assign(gpua::inventory::podKeyOf(pod), toJson(pod));
  }
  std::map<std::string, std::string> pods_;
};

struct Cluster {
  double clock = 0;
  Ledger usage{shippedPolicy(), [this] { return clock; }};
  SupplyLedger supply{shippedPolicy()};
  PodShadow shadow;

  void list(std::string_view kind, const rapidjson::Value& items) {
    if (kind == "NamespaceList") {
      usage.beginNamespaceList();
      usage.addNamespacePage(items);
      usage.commitNamespaceList();
    } else if (kind == "NodeList") {
      supply.beginNodeList();
      supply.addNodePage(items);
      supply.commitNodeList();
    } else {
      usage.beginPodList();
      usage.addPodPage(items);
      usage.commitPodList();
      supply.beginPodList();
      supply.addPodPage(items);
      supply.commitPodList();
      shadow.list(items);
    }
  }

  void event(EventType type, const rapidjson::Value& object) {
    const auto kind = kindOf(object);
    if (kind == "Namespace") {
      usage.applyNamespaceEvent(type, object);
    } else if (kind == "Node") {
      supply.applyNodeEvent(type, object);
    } else {
      usage.applyPodEvent(type, object);
      supply.applyPodEvent(type, object);
      shadow.event(type, object);
    }
  }
};

void checkNode(const gpua::engine::NodeSupply& node) {
  if (node.cpuMillis < 0 || node.memoryBytes < 0)
    fail("node " + node.name + ": negative cpu/memory");
  for (const auto& [resource, units] : node.allocatable)
    if (units < 0) fail("node " + node.name + ": negative allocatable " + resource);
  for (const auto& [resource, units] : node.allocated)
    if (units < 0) fail("node " + node.name + ": negative allocated " + resource);
}

// The CLI reads `kubectl get nodes -o json` with the same node decoder: it must take any page.
void decodeAsNodesFile(const rapidjson::Value& doc, const gpua::inventory::NodeResourceFilter& f) {
  for (const auto& node : gpua::inventory::nodesFromList(doc, f)) checkNode(node);
}

void applyLine(Cluster& cluster, std::string_view line) {
  rapidjson::Document doc;
  doc.Parse(line.data(), line.size());
  if (doc.HasParseError() || !doc.IsObject()) return;  // the client drops the stream
  if (const auto items = doc.FindMember("items"); items != doc.MemberEnd()) {
    if (kindOf(doc) == "NodeList") decodeAsNodesFile(doc, cluster.supply.filter());
    cluster.list(kindOf(doc), items->value);
    return;
  }
  const auto object = doc.FindMember("object");
  if (object == doc.MemberEnd() || !object->value.IsObject()) return;
  const auto typeIt = doc.FindMember("type");
  const std::string_view type = typeIt != doc.MemberEnd() && typeIt->value.IsString()
                                    ? std::string_view(typeIt->value.GetString())
                                    : std::string_view();
  if (type == "ERROR" || type == "BOOKMARK") return;
  cluster.event(type == "ADDED"     ? EventType::Added
                : type == "DELETED" ? EventType::Deleted
                                    : EventType::Modified,
                object->value);
}

bool near(double a, double b) {
  return std::fabs(a - b) <= 1e-6 * (1 + std::fabs(a) + std::fabs(b));
}

const gpua::engine::NamespaceUsage& usageOf(const gpua::engine::UsageSnapshot& s,
                                            const std::string& ns) {
  static const gpua::engine::NamespaceUsage none;
  const auto it = s.namespaces.find(ns);
  return it == s.namespaces.end() ? none : it->second;
}

int64_t unitsOf(const gpua::engine::NamespaceUsage& u, const std::string& resource) {
  const auto it = u.byResource.find(resource);
  return it == u.byResource.end() ? 0 : it->second;
}

// Usage after the stream equals usage of one list of the pods still there, both ways round.
void compareUsage(const gpua::engine::UsageSnapshot& a, const gpua::engine::UsageSnapshot& b) {
  for (const auto& [ns, usage] : a.namespaces) {
    if (!near(usage.gpuEquivalents, usageOf(b, ns).gpuEquivalents))
      fail("usage of " + ns + " after the events differs from a relist");
    for (const auto& [resource, units] : usage.byResource)
      if (units != unitsOf(usageOf(b, ns), resource))
        fail("units of " + resource + " in " + ns + " after the events differ from a relist");
  }
}

void checkUsage(const Cluster& cluster, const rapidjson::Value& pods) {
  const auto streamed = cluster.usage.snapshot(true, "");
  for (const auto& [ns, usage] : streamed->namespaces) {
    if (usage.gpuEquivalents < -1e-9) fail("negative usage in " + ns);
    for (const auto& [cls, ge] : usage.byClass)
      if (ge < -1e-9) fail("negative usage of class " + cls + " in " + ns);
    for (const auto& [resource, units] : usage.byResource)
      if (units < 0) fail("negative units of " + resource + " in " + ns);
  }
  Ledger fresh(shippedPolicy());
  fresh.applyPodList(pods);
  const auto listed = fresh.snapshot(true, "");
  compareUsage(*streamed, *listed);
  compareUsage(*listed, *streamed);
}

void checkSupply(const Cluster& cluster, const rapidjson::Value& pods) {
  auto nodes = cluster.supply.nodes();
  for (const auto& node : nodes) checkNode(node);
  SupplyLedger fresh(shippedPolicy());
  auto bare = nodes;
  for (auto& n : bare) n.allocated.clear();
  fresh.setNodes(std::move(bare));
  fresh.beginPodList();
  fresh.addPodPage(pods);
  fresh.commitPodList();
  const auto relisted = fresh.nodes();
  for (std::size_t i = 0; i < nodes.size(); ++i)
    if (nodes[i].allocated != relisted[i].allocated)
      fail("allocated on node " + nodes[i].name + " after the events differs from a relist");
  const auto queue = cluster.supply.pending(1e9), queueRelisted = fresh.pending(1e9);
  int64_t waiting = 0;
  for (const auto& q : queue) waiting += q.pods;
  if (waiting != static_cast<int64_t>(cluster.supply.pendingPodCount()))
    fail("the pending queue does not add up to the pending pods");
  if (queue.size() != queueRelisted.size()) fail("pending queue after the events differs");
  for (std::size_t i = 0; i < queue.size(); ++i)
    if (queue[i].className != queueRelisted[i].className ||
        queue[i].pool != queueRelisted[i].pool || queue[i].pods != queueRelisted[i].pods)
      fail("pending queue of class " + queue[i].className + " differs from a relist");
  const auto summary = gpua::engine::summarizeSupply({std::move(nodes), queue}, *shippedPolicy());
  for (const auto& [name, pool] : summary.pools) {
    if (pool.nodesReady + pool.nodesNotReady != pool.nodesTotal ||
        pool.nodesSchedulable + pool.nodesTainted > pool.nodesReady ||
        pool.nodesCordoned > pool.nodesTotal || pool.nodesSilent > pool.nodesTotal)
      fail("pool " + name + ": node counts do not add up");
    // What usable nodes offer now is part of what the pool's nodes are (structural figures).
    for (const auto& [resource, r] : pool.resources)
      if (r.maxPerNode > r.largestPerNode || r.nodes > pool.nodesSchedulable)
        fail("pool " + name + ", " + resource + ": usable figures beyond the structural ones");
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  Cluster cluster;
  std::size_t start = 0;
  while (start <= input.size()) {
    const std::size_t end = std::min(input.find('\n', start), input.size());
    applyLine(cluster, input.substr(start, end - start));
    cluster.clock += 1;
    start = end + 1;
  }
  const auto pods = cluster.shadow.items();
  checkUsage(cluster, pods);
  checkSupply(cluster, pods);
  for (const auto& g : cluster.usage.geSeconds())
    if (g.seconds < -1e-6 || g.gpuEquivalents < -1e-9) fail("negative GE-seconds");
  return 0;
}
