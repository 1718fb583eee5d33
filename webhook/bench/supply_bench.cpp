// The supply ledger at scale: 5,000 nodes and 100,000 pods bound to them (the targets:
// supply plus usage ledger under 128 MiB, first sync under 5 s, a node event under 50 us).
// Nodes look like real GPU nodes: GPU Feature Discovery labels, taints, five conditions and an
// images list, so parsing costs what it costs in a cluster.
#include <benchmark/benchmark.h>
#include <malloc.h>
#include <rapidjson/document.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>

#include "bench_inputs.hpp"
#include "inventory/ledger.hpp"
#include "inventory/supply_ledger.hpp"

namespace gpua::bench {
namespace {

constexpr std::size_t kNodes = 5'000;
constexpr std::size_t kPods = 100'000;

std::shared_ptr<const policy::PolicySet> shipped() {
  return shippedPolicy();
}

// Node i: a third are A100 MIG inference nodes, the rest H100 training nodes.
std::string nodeJson(std::size_t i, bool cordoned = false) {
  const auto n = std::to_string(i);
  const bool mig = i % 3 == 1;
  std::string s = R"({"apiVersion":"v1","kind":"Node","metadata":{"name":"gpu-node-)" + n +
                  R"(","uid":"6b1f0c1e-0000-4000-8000-)" + std::string(12 - n.size(), '0') + n +
                  R"(","resourceVersion":"12345678","labels":{)";
  s += R"("kubernetes.io/hostname":"gpu-node-)" + n + R"(","kubernetes.io/os":"linux",)";
  s += R"("kubernetes.io/arch":"amd64","node.kubernetes.io/instance-type":"p5.48xlarge",)";
  s += R"("topology.kubernetes.io/zone":"eu-west-1a","topology.kubernetes.io/region":"eu-west-1",)";
  s +=
      R"("nvidia.com/gpu.present":"true","nvidia.com/gpu.count":"8","nvidia.com/gpu.memory":"81559",)";
  s += R"("nvidia.com/cuda.driver.major":"550","nvidia.com/cuda.driver.minor":"54",)";
  s += R"("nvidia.com/gpu.family":"hopper","nvidia.com/gpu.compute.major":"9",)";
  if (mig) {
    s += R"("nvidia.com/gpu.product":"NVIDIA-A100-SXM4-80GB","nvidia.com/mig.capable":"true",)";
    s += R"("nvidia.com/mig.strategy":"mixed","nvidia.com/mig.config.state":"success",)";
    s += R"("nvidia.com/mig.config":"all-balanced","gpu-admission.io/pool":"infer-a100"},)";
  } else {
    s += R"("nvidia.com/gpu.product":"NVIDIA-H100-80GB-HBM3","nvidia.com/mig.capable":"false",)";
    s += R"("nvidia.com/gpu.sharing-strategy":"none","gpu-admission.io/pool":"train-h100"},)";
  }
  s +=
      R"("annotations":{"node.alpha.kubernetes.io/ttl":"0","volumes.kubernetes.io/controller-managed-attach-detach":"true"}},)";
  s += R"("spec":{"podCIDR":"10.1.)" + std::to_string(i % 250) +
       R"(.0/24","providerID":"aws:///eu-west-1a/i-0)" + n + R"(",)";
  if (cordoned) s += R"("unschedulable":true,)";
  s += R"("taints":[{"key":"nvidia.com/gpu","effect":"NoSchedule"}]},"status":{)";
  const std::string gpus =
      mig ? R"("nvidia.com/gpu":"0","nvidia.com/mig-1g.10gb":"16","nvidia.com/mig-2g.20gb":"8","nvidia.com/mig-3g.40gb":"4")"
          : R"("nvidia.com/gpu":"8")";
  s +=
      R"("capacity":{"cpu":"192","memory":"2097152000Ki","pods":"110","ephemeral-storage":"1Ti","hugepages-1Gi":"0",)" +
      gpus + "},";
  s +=
      R"("allocatable":{"cpu":"191450m","memory":"2086000000Ki","pods":"110","ephemeral-storage":"950Gi","hugepages-1Gi":"0",)" +
      gpus + "},";
  s += R"("conditions":[)";
  for (const char* c : {"MemoryPressure", "DiskPressure", "PIDPressure"})
    s +=
        std::string(R"({"type":")") + c +
        R"(","status":"False","lastHeartbeatTime":"2026-12-01T08:00:00Z","lastTransitionTime":"2026-11-01T00:00:00Z","reason":"KubeletHasSufficient","message":"kubelet has sufficient resources"},)";
  s +=
      R"({"type":"Ready","status":"True","lastHeartbeatTime":"2026-12-01T08:00:00Z","lastTransitionTime":"2026-11-01T00:00:00Z","reason":"KubeletReady","message":"kubelet is posting ready status"}],)";
  s += R"("addresses":[{"type":"InternalIP","address":"10.0.)" + std::to_string(i % 250) + "." +
       std::to_string(i / 250) + R"("},{"type":"Hostname","address":"gpu-node-)" + n + R"("}],)";
  s +=
      R"x("nodeInfo":{"kubeletVersion":"v1.31.2","containerRuntimeVersion":"containerd://1.7.22",)x"
      R"x("kernelVersion":"6.1.0-26-amd64","osImage":"Debian GNU/Linux 12 (bookworm)",)x"
      R"x("architecture":"amd64","operatingSystem":"linux"},)x";
  s += R"("images":[)";
  for (int k = 0; k < 20; ++k)
    s +=
        std::string(k ? "," : "") +
        R"({"names":["nvcr.io/nvidia/pytorch@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcde)" +
        std::to_string(k % 10) + R"(","nvcr.io/nvidia/pytorch:24.0)" + std::to_string(k % 10) +
        R"(-py3"],"sizeBytes":9876543210})";
  s += "]}}";
  return s;
}

std::string listOf(std::size_t count, std::string (*item)(std::size_t)) {
  std::string out = "[";
  for (std::size_t i = 0; i < count; ++i) {
    if (i) out += ',';
    out += item(i);
  }
  return out + "]";
}

std::string nodeItem(std::size_t i) {
  return nodeJson(i);
}

// The bench pods (bench_inputs), each bound to a node: spec.nodeName added.
std::string boundPod(std::size_t i) {
  auto p = listPodJson(i);
  const auto at = p.find(R"("spec":{)") + 8;
  return p.insert(at, R"("nodeName":"gpu-node-)" + std::to_string(i % kNodes) + "\",");
}

const std::string& nodeList() {
  static const std::string s = listOf(kNodes, &nodeItem);
  return s;
}

const std::string& podList() {
  static const std::string s = listOf(kPods, &boundPod);
  return s;
}

std::size_t heapInUse() {
  return mallinfo2().uordblks;
}

// Parses the node list and applies it to `supply`, as one list page.
void loadNodes(inventory::SupplyLedger& supply) {
  rapidjson::Document nodes;
  nodes.Parse(nodeList().data(), nodeList().size());
  supply.beginNodeList();
  supply.addNodePage(nodes);
  supply.commitNodeList();
}

// Parses the pod list and applies it to `supply` and, when given, the usage ledger.
void loadPods(inventory::SupplyLedger& supply, inventory::Ledger* usage = nullptr) {
  rapidjson::Document pods;
  pods.Parse(podList().data(), podList().size());
  if (usage != nullptr) usage->applyPodList(pods);
  supply.beginPodList();
  supply.addPodPage(pods);
  supply.commitPodList();
}

// First sync: parse and apply the node list and the pod list into both ledgers (what the
// watch client does before it reports synced), and build the supply snapshot's first stage.
void BM_SupplyFirstSync(benchmark::State& state) {
  for (auto _ : state) {
    const auto start = std::chrono::steady_clock::now();
    inventory::SupplyLedger supply(shipped());
    inventory::Ledger usage(shipped());
    loadNodes(supply);
    loadPods(supply, &usage);
    auto stage1 = supply.nodes();
    benchmark::DoNotOptimize(stage1.data());
    state.counters["sync_s"] =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (supply.nodeCount() != kNodes || supply.boundPodCount() != kPods)
      state.SkipWithError("not every node or pod was counted");
  }
  state.counters["nodes_MiB"] = static_cast<double>(nodeList().size()) / (1 << 20);
  state.counters["pods_MiB"] = static_cast<double>(podList().size()) / (1 << 20);
}

// What the supply and usage ledgers keep once the list documents are gone.
void BM_SupplyMemory(benchmark::State& state) {
  for (auto _ : state) {
    const auto before = heapInUse();
    auto supply = std::make_unique<inventory::SupplyLedger>(shipped());
    auto usage = std::make_unique<inventory::Ledger>(shipped());
    loadNodes(*supply);
    const auto afterNodes = heapInUse() - before;
    loadPods(*supply, usage.get());
    const auto kept = heapInUse() - before;
    // A published snapshot's first stage (a copy of every node) lives beside the ledgers.
    auto stage1 = supply->nodes();
    const auto withSnapshot = heapInUse() - before;
    state.counters["nodes_MiB"] = static_cast<double>(afterNodes) / (1 << 20);
    state.counters["kept_MiB"] = static_cast<double>(kept) / (1 << 20);
    state.counters["with_snapshot_MiB"] = static_cast<double>(withSnapshot) / (1 << 20);
    benchmark::DoNotOptimize(stage1.data());
  }
}

// One node watch event (MODIFIED: cordoned) against 5,000 nodes and 100,000 pods: parse the
// event line, decode the node, replace it.
void BM_SupplyNodeEventParseAndApply(benchmark::State& state) {
  inventory::SupplyLedger supply(shipped());
  loadNodes(supply);
  const auto event = nodeJson(4242, true);
  for (auto _ : state) {
    rapidjson::Document node;
    node.Parse(event.data(), event.size());
    supply.applyNodeEvent(inventory::EventType::Modified, node);
  }
  state.counters["event_KiB"] = static_cast<double>(event.size()) / 1024;
  if (supply.nodeCount() != kNodes) state.SkipWithError("the event changed the node count");
}

// The same without the JSON parse: the ledger's own share.
void BM_SupplyNodeEventApplyOnly(benchmark::State& state) {
  inventory::SupplyLedger supply(shipped());
  loadNodes(supply);
  const auto event = nodeJson(4242, true);
  rapidjson::Document node;
  node.Parse(event.data(), event.size());
  for (auto _ : state) supply.applyNodeEvent(inventory::EventType::Modified, node);
}

// One pod watch event (bound pod, MODIFIED) in the supply ledger.
void BM_SupplyPodEvent(benchmark::State& state) {
  inventory::SupplyLedger supply(shipped());
  loadPods(supply);
  const auto event = boundPod(4242);
  for (auto _ : state) {
    rapidjson::Document pod;
    pod.Parse(event.data(), event.size());
    supply.applyPodEvent(inventory::EventType::Modified, pod);
  }
}

// Stage 1 of a supply snapshot: every node copied with its allocated units.
void BM_SupplySnapshotStage1(benchmark::State& state) {
  inventory::SupplyLedger supply(shipped());
  loadNodes(supply);
  loadPods(supply);
  for (auto _ : state) {
    auto stage1 = supply.nodes();
    benchmark::DoNotOptimize(stage1.data());
  }
}

BENCHMARK(BM_SupplyFirstSync)->Unit(benchmark::kMillisecond)->Iterations(2);
BENCHMARK(BM_SupplyMemory)->Unit(benchmark::kMillisecond)->Iterations(1);
BENCHMARK(BM_SupplyNodeEventParseAndApply)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_SupplyNodeEventApplyOnly)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_SupplyPodEvent)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_SupplySnapshotStage1)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace gpua::bench

BENCHMARK_MAIN();
