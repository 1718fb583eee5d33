// gpu-admission status: what on-call and team leads look at first, `kubectl top` for GPUs. Per
// pool: nodes and GPU units allocatable / allocated / free with the queue; per quota: used
// against the limit in GPU-equivalents; per class: the queue, pods bound in the last hour and
// their wait. From the cluster (one list of pods, namespaces and nodes) or snapshot files.
//
// Exit status: 0 report printed, 1 the cluster could not be read, 2 usage error or bad input.
#include <rapidjson/prettywriter.h>
#include <rapidjson/stringbuffer.h>

#include <chrono>
#include <cmath>
#include <cstdio>

#include "authoring/documents.hpp"
#include "authoring/policy_files.hpp"
#include "cli/command_line.hpp"
#include "cli/command_registry.hpp"
#include "cluster/api_client.hpp"
#include "cluster/api_config.hpp"
#include "cluster/cluster_lists.hpp"
#include "engine/context/dra_supply.hpp"
#include "engine/context/supply.hpp"
#include "inventory/dra_decode.hpp"
#include "inventory/node_decode.hpp"
#include "inventory/status_report.hpp"
#include "inventory/supply_ledger.hpp"
#include "inventory/usage_file.hpp"
#include "kube/rfc3339.hpp"

namespace gpua::cli {
namespace {

struct StatusOptions {
  std::string kubeconfig, context, pods, nodes, namespaces, dra, policies = "policies", now;
  std::string output = "table";
  bool inCluster = false;
};

// Pods, namespaces and nodes as JSON lists, from wherever they came.
struct Inputs {
  rapidjson::Document pods{rapidjson::kArrayType};
  rapidjson::Document namespaces{rapidjson::kArrayType};
  std::optional<rapidjson::Document> nodes;  // absent: no node source
  std::optional<rapidjson::Document> dra;    // DRA objects (spec.dra); absent: none
};

Inputs fromFiles(const StatusOptions& o) {
  Inputs in;
  if (!o.pods.empty()) in.pods = authoring::readDocumentFile(o.pods);
  if (!o.namespaces.empty()) in.namespaces = authoring::readDocumentFile(o.namespaces);
  if (!o.nodes.empty()) in.nodes = authoring::readDocumentFile(o.nodes);
  if (!o.dra.empty()) in.dra = authoring::readDocumentFile(o.dra);
  return in;
}

Inputs fromCluster(const StatusOptions& o, bool withDra) {
  const auto api =
      o.inCluster ? cluster::loadInClusterConfig("/var/run/secrets/kubernetes.io/serviceaccount")
                  : cluster::loadKubeconfig(o.kubeconfig, o.context);
  auto objects = cluster::listClusterObjects(api, std::chrono::seconds(30), 500, withDra);
  Inputs in;
  in.pods = std::move(objects.pods);
  // Items of a typed list carry no kind: say what they are.
  in.namespaces.SetObject();
  in.namespaces.AddMember("kind", "NamespaceList", in.namespaces.GetAllocator());
  in.namespaces.AddMember("items",
                          rapidjson::Value(objects.namespaces, in.namespaces.GetAllocator()),
                          in.namespaces.GetAllocator());
  in.nodes = std::move(objects.nodes);
  if (objects.dra) in.dra = std::move(*objects.dra);
  return in;
}

double nowOf(const StatusOptions& o) {
  if (!o.now.empty()) {
    if (auto t = kube::parseRfc3339(o.now)) return *t;
    throw UsageError("--now must be an RFC 3339 time such as 2026-12-01T10:00:00Z");
  }
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

inventory::StatusReport reportOf(const Inputs& in, const policy::PolicySet& policy, double now) {
  rapidjson::Document both(rapidjson::kArrayType);
  both.PushBack(rapidjson::Value(in.pods, both.GetAllocator()), both.GetAllocator());
  both.PushBack(rapidjson::Value(in.namespaces, both.GetAllocator()), both.GetAllocator());
  const auto usage = inventory::usageFromPodList(both, policy);
  std::vector<inventory::ScheduleWait> waits;
  engine::SupplySnapshot supply;
  if (in.nodes) {
    auto stage1 = inventory::supplyFromLists(
        inventory::nodesFromList(*in.nodes, inventory::nodeResourceFilter(policy)), in.pods, policy,
        now, &waits);
    if (in.dra) {
      engine::DraObjects dra;
      inventory::addDraObjects(*in.dra, dra);
      engine::addDraSupply(stage1.nodes, dra, policy);
    }
    supply = engine::summarizeSupply(std::move(stage1), policy);
  } else {
    auto stage1 = inventory::supplyFromLists({}, in.pods, policy, now, &waits);
    supply.pending = std::move(stage1.pending);
    supply.unavailableReason = "no node source (give --nodes, or read the cluster)";
  }
  return inventory::buildStatusReport(policy, usage, supply, waits, now);
}

// ---- table ----

// printf without the trailing blanks of empty last columns.
template <class... Args>
void row(const char* fmt, Args... args) {
  char buf[512];
  std::snprintf(buf, sizeof buf, fmt, args...);
  std::string line(buf);
  while (!line.empty() && (line.back() == ' ' || line.back() == '\n')) line.pop_back();
  std::printf("%s\n", line.c_str());
}

std::string duration(double seconds) {
  const auto s = static_cast<int64_t>(std::llround(std::max(0.0, seconds)));
  char buf[32];
  if (s < 60)
    std::snprintf(buf, sizeof buf, "%llds", static_cast<long long>(s));
  else if (s < 3600)
    std::snprintf(buf, sizeof buf, "%lldm", static_cast<long long>(s / 60));
  else if (s < 86400)
    std::snprintf(buf, sizeof buf, "%lldh%02lldm", static_cast<long long>(s / 3600),
                  static_cast<long long>(s % 3600 / 60));
  else
    std::snprintf(buf, sizeof buf, "%lldd%02lldh", static_cast<long long>(s / 86400),
                  static_cast<long long>(s % 86400 / 3600));
  return buf;
}

std::string ge(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f", v);
  return buf;
}

void printPools(const inventory::StatusReport& r) {
  if (!r.supplyAvailable) {
    std::printf("pools: no node data (%s)\n", r.supplyUnavailableReason.c_str());
    return;
  }
  const char* fmt = "%-18s %-7s %-26s %11s %9s %6s %7s %7s";
  row(fmt, "POOL", "NODES", "RESOURCE", "ALLOCATABLE", "ALLOCATED", "FREE", "PENDING", "OLDEST");
  for (const auto& p : r.pools) {
    const auto nodes = std::to_string(p.nodesReady) + "/" + std::to_string(p.nodesTotal);
    const auto pending = std::to_string(p.pendingPods);
    const auto oldest = p.pendingPods > 0 ? duration(p.oldestWaitSeconds) : "-";
    if (p.resources.empty())
      row(fmt, p.pool.c_str(), nodes.c_str(), "-", "-", "-", "-", pending.c_str(), oldest.c_str());
    bool first = true;
    for (const auto& res : p.resources) {
      const std::string name = res.source == "dra" ? res.name + " (DRA)" : res.name;
      row(fmt, first ? p.pool.c_str() : "", first ? nodes.c_str() : "", name.c_str(),
          std::to_string(res.allocatable).c_str(), std::to_string(res.allocated).c_str(),
          std::to_string(res.free).c_str(), first ? pending.c_str() : "",
          first ? oldest.c_str() : "");
      first = false;
    }
  }
  if (!r.unpooledGpuNodes.empty()) {
    std::string names;
    for (const auto& n : r.unpooledGpuNodes) names += (names.empty() ? "" : ", ") + n;
    std::printf("GPU nodes in no pool: %s\n", names.c_str());
  }
}

void printQuotas(const inventory::StatusReport& r) {
  if (r.quotas.empty()) return;
  const char* fmt = "%-18s %-28s %8s %8s  %s";
  std::printf("\n");
  row(fmt, "QUOTA", "SCOPE", "USED GE", "LIMIT", "TOP NAMESPACES");
  for (const auto& q : r.quotas) {
    std::string top;
    for (const auto& [ns, used] : q.topNamespaces)
      top += (top.empty() ? "" : ", ") + ns + " " + ge(used);
    row(fmt, q.quota.c_str(), q.scope.c_str(), ge(q.used).c_str(),
        q.limit ? ge(*q.limit).c_str() : "-", top.empty() ? "-" : top.c_str());
  }
}

void printClasses(const inventory::StatusReport& r) {
  const char* fmt = "%-18s %7s %7s %9s %9s %9s";
  std::printf("\n");
  row(fmt, "CLASS", "PENDING", "OLDEST", "BOUND 1H", "WAIT P50", "WAIT P95");
  auto opt = [](const std::optional<double>& v) { return v ? duration(*v) : std::string("-"); };
  for (const auto& c : r.classes)
    row(fmt, c.className.empty() ? "(unclassified)" : c.className.c_str(),
        std::to_string(c.pendingPods).c_str(),
        c.pendingPods > 0 ? duration(c.oldestWaitSeconds).c_str() : "-",
        std::to_string(c.boundLastHour).c_str(), opt(c.waitP50).c_str(), opt(c.waitP95).c_str());
}

// ---- json ----

using Writer = rapidjson::PrettyWriter<rapidjson::StringBuffer>;

void key(Writer& w, const char* k, const std::string& v) {
  w.Key(k);
  w.String(v.c_str(), static_cast<rapidjson::SizeType>(v.size()));
}

void key(Writer& w, const char* k, int64_t v) {
  w.Key(k);
  w.Int64(v);
}

void key(Writer& w, const char* k, const std::optional<double>& v) {
  w.Key(k);
  v ? w.Double(*v) : w.Null();
}

void writePools(Writer& w, const inventory::StatusReport& r) {
  w.Key("pools");
  w.StartArray();
  for (const auto& p : r.pools) {
    w.StartObject();
    key(w, "pool", p.pool);
    key(w, "nodesTotal", p.nodesTotal);
    key(w, "nodesReady", p.nodesReady);
    key(w, "nodesNotReady", p.nodesNotReady);
    key(w, "nodesCordoned", p.nodesCordoned);
    w.Key("resources");
    w.StartArray();
    for (const auto& res : p.resources) {
      w.StartObject();
      key(w, "resource", res.name);
      key(w, "allocatable", res.allocatable);
      key(w, "allocated", res.allocated);
      key(w, "free", res.free);
      key(w, "source", res.source);
      w.EndObject();
    }
    w.EndArray();
    key(w, "pendingPods", p.pendingPods);
    key(w, "oldestWaitSeconds", std::optional<double>(p.oldestWaitSeconds));
    w.EndObject();
  }
  w.EndArray();
  w.Key("unpooledGpuNodes");
  w.StartArray();
  for (const auto& n : r.unpooledGpuNodes) w.String(n.c_str());
  w.EndArray();
}

void writeQuotas(Writer& w, const inventory::StatusReport& r) {
  w.Key("quotas");
  w.StartArray();
  for (const auto& q : r.quotas) {
    w.StartObject();
    key(w, "quota", q.quota);
    key(w, "scope", q.scope);
    key(w, "usedGpuEquivalents", std::optional<double>(q.used));
    key(w, "limitGpuEquivalents", q.limit);
    w.Key("topNamespaces");
    w.StartArray();
    for (const auto& [ns, used] : q.topNamespaces) {
      w.StartObject();
      key(w, "namespace", ns);
      key(w, "usedGpuEquivalents", std::optional<double>(used));
      w.EndObject();
    }
    w.EndArray();
    w.EndObject();
  }
  w.EndArray();
}

void writeClasses(Writer& w, const inventory::StatusReport& r) {
  w.Key("classes");
  w.StartArray();
  for (const auto& c : r.classes) {
    w.StartObject();
    key(w, "class", c.className);
    key(w, "pendingPods", c.pendingPods);
    key(w, "oldestWaitSeconds", std::optional<double>(c.oldestWaitSeconds));
    key(w, "boundLastHour", c.boundLastHour);
    key(w, "waitP50Seconds", c.waitP50);
    key(w, "waitP95Seconds", c.waitP95);
    w.EndObject();
  }
  w.EndArray();
}

void printJson(const inventory::StatusReport& r) {
  rapidjson::StringBuffer buf;
  Writer w(buf);
  w.StartObject();
  w.Key("supplyAvailable");
  w.Bool(r.supplyAvailable);
  if (!r.supplyAvailable) key(w, "supplyUnavailableReason", r.supplyUnavailableReason);
  writePools(w, r);
  writeQuotas(w, r);
  writeClasses(w, r);
  w.EndObject();
  std::printf("%s\n", buf.GetString());
}

int status(const StatusOptions& o) {
  const bool cluster = !o.kubeconfig.empty() || o.inCluster;
  const bool files = !o.pods.empty() || !o.nodes.empty() || !o.namespaces.empty() || !o.dra.empty();
  if (cluster == files)
    throw UsageError(cluster
                         ? "read the cluster or snapshot files, not both"
                         : "give --kubeconfig, --in-cluster, or snapshot files (--pods, --nodes)");
  if (!o.kubeconfig.empty() && o.inCluster)
    throw UsageError("--kubeconfig and --in-cluster exclude each other");
  const auto policy = authoring::loadPolicies(splitList(o.policies));
  const double now = nowOf(o);
  Inputs in;
  if (files) {
    in = fromFiles(o);
  } else {
    try {
      in = fromCluster(o, policy->dra.declared);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "gpu-admission status: %s\n", e.what());
      return 1;
    }
  }
  const auto report = reportOf(in, *policy, now);
  if (o.output == "json") {
    printJson(report);
    return 0;
  }
  printPools(report);
  printQuotas(report);
  printClasses(report);
  return 0;
}

int runStatus(int argc, char** argv) {
  CommandLine cl(
      "status",
      "usage: gpu-admission status [--kubeconfig FILE | --in-cluster | --pods FILE --nodes FILE]\n"
      "                            [options]",
      "GPU supply and the queue: per pool, nodes ready/total and per GPU resource allocatable,\n"
      "allocated, free, pending pods and the oldest wait; per quota, GPU-equivalents used against\n"
      "the limit and the top namespaces; per class, pending pods, pods bound in the last hour and\n"
      "their wait p50/p95 (creation to PodScheduled).\n",
      "exit status: 0 report printed, 1 the cluster could not be read, 2 usage error or bad "
      "input\n");
  StatusOptions o;
  CLI::App& app = cl.app();
  const std::string cluster = "From the cluster (needs list on pods, namespaces and nodes)";
  app.add_option("--kubeconfig", o.kubeconfig, "a kubeconfig (its current context, or --context)")
      ->type_name("FILE")
      ->group(cluster);
  app.add_option("--context", o.context)->type_name("NAME")->group(cluster);
  app.add_flag("--in-cluster", o.inCluster, "the pod's service account")->group(cluster);
  const std::string files = "From snapshot files (JSON or YAML)";
  app.add_option("--pods", o.pods, "kubectl get pods -A -o json")->type_name("FILE")->group(files);
  app.add_option("--nodes", o.nodes, "kubectl get nodes -o json (without it: no pool table)")
      ->type_name("FILE")
      ->group(files);
  app.add_option("--dra", o.dra,
                 "kubectl get deviceclasses,resourceclaims,resourceslices -o json:\n"
                 "the GPU devices of ResourceSlices per pool (spec.dra)")
      ->type_name("FILE")
      ->group(files);
  app.add_option("--namespaces", o.namespaces,
                 "kubectl get ns -o json (namespace labels for quotas)")
      ->type_name("FILE")
      ->group(files);
  app.add_option("-p,--policies", o.policies, "policy files or directories (default: policies)")
      ->type_name("PATH,...");
  app.add_option("--now", o.now, "judge waits as of this RFC 3339 time (default: now)")
      ->type_name("TIME");
  app.add_option("-o,--output", o.output, "(default: table)")
      ->type_name("table|json")
      ->check(CLI::IsMember({"table", "json"}).description(""));
  return cl.run(argc, argv, [&o] { return status(o); });
}

const CommandRegistrar kStatus{
    {"status", "GPU supply and the queue per pool, quota and class", &runStatus}};

}  // namespace
}  // namespace gpua::cli
