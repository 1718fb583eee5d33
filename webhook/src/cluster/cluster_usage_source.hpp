// Live GPU usage and supply from the Kubernetes API: lists then watches pods, namespaces and
// nodes (one ListWatch each), keeps the usage ledger and the supply ledger, and publishes
// immutable UsageSnapshots and SupplySnapshots for the engine.
//
// Wiring (from `serve`):
//   cluster::ClusterOptions opts;              // kubeconfig or in-cluster, timings
//   opts.kubeconfig = flags.kubeconfig;        // empty = in-cluster service account
//   auto usage = cluster::startClusterUsageSource(opts, [&] { return policies.current(); });
//   ... usage->current() and usage->currentSupply() per request, usage->synced() for /readyz,
//   ... opts.registry = &registry exports watch restarts, last event age, ledger pods and
//   ... GE-seconds per namespace/class; usage->stop() on shutdown.
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "cluster/api_config.hpp"
#include "cluster/list_watch_options.hpp"
#include "cluster/metrics.hpp"
#include "engine/context/supply.hpp"
#include "engine/context/usage.hpp"
#include "inventory/ledger.hpp"
#include "policy/policy_set.hpp"
#include "telemetry/metrics.hpp"

namespace gpua::cluster {

// The current policy (hot reloads swap it); called from the watch thread.
using PolicyProvider = std::function<std::shared_ptr<const policy::PolicySet>()>;
// level: "info" | "warn" | "error"; the message is one line.
using LogSink = std::function<void(std::string_view level, std::string_view message)>;

struct ClusterOptions {
  std::string kubeconfig;  // empty = in-cluster service account
  std::string context;     // kubeconfig context; empty = current-context
  std::string serviceAccountDir = "/var/run/secrets/kubernetes.io/serviceaccount";

  // Quota checks stay live while a watch reconnects; after this long they follow
  // PolicySet::quotaUnavailable (fail open or closed).
  std::chrono::milliseconds unavailableGrace{30'000};
  std::chrono::milliseconds publishInterval{50};  // snapshots are coalesced to at most one per
  // Supply snapshots copy every node: coalesced further.
  std::chrono::milliseconds supplyPublishInterval{500};
  bool watchNodes = true;  // false: no node source, capacity checks off (needs RBAC on nodes)
  // Watch resource.k8s.io/v1 (device classes, claims, claim templates, slices) so pods' DRA
  // claims resolve and count (spec.dra; needs RBAC on them and Kubernetes >= 1.34).
  bool watchDra = false;
  ListWatchOptions listWatch;  // every resource's list/watch loop: backoff, timeouts, page size

  inventory::SecondsClock clock;  // for GE-seconds; default steady_clock
  LogSink log;         // default: JSON lines on stderr
  // When set, the client's metrics are registered here (telemetry/metric_names.hpp) and
  // GE-seconds are exported every geSecondsExportInterval. Must outlive the source.
  telemetry::Registry* registry = nullptr;
  std::chrono::milliseconds geSecondsExportInterval{5'000};
};

class ClusterUsageSource final : public engine::UsageSource, public engine::SupplySource {
 public:
  ClusterUsageSource(ApiConfig api, ClusterOptions options, PolicyProvider policy,
                     std::shared_ptr<ClusterMetrics> metrics);
  ~ClusterUsageSource() override;
  ClusterUsageSource(const ClusterUsageSource&) = delete;
  ClusterUsageSource& operator=(const ClusterUsageSource&) = delete;

  std::shared_ptr<const engine::UsageSnapshot> current() const override;
  bool synced() const override { return metrics_->synced.load(); }
  // Unavailable until nodes and pods are listed, or when watchNodes is off.
  std::shared_ptr<const engine::SupplySnapshot> currentSupply() const override;

  void start();
  void stop();  // idempotent; joins the watch thread

  const ClusterMetrics& metrics() const { return *metrics_; }
  std::vector<inventory::GeSeconds> geSeconds();  // thread-safe
  std::string lastError() const;

 private:
  class Runner;
  std::unique_ptr<Runner> runner_;
  std::shared_ptr<ClusterMetrics> metrics_;
  mutable std::mutex snapshotMutex_;
  std::shared_ptr<const engine::UsageSnapshot> snapshot_;
  std::shared_ptr<const engine::SupplySnapshot> supply_;
  friend class Runner;
};

// The API configuration the options name: the kubeconfig's, else the in-cluster service
// account's. Throws ClusterConfigError naming the file and key.
ApiConfig apiConfigOf(const ClusterOptions& options);

// Loads the API configuration (kubeconfig or in-cluster; throws ClusterConfigError with a
// message naming the file and key) and starts the watch thread. Never blocks on the network:
// the source is unsynced (snapshot unavailable) until the first lists complete.
std::shared_ptr<ClusterUsageSource> startClusterUsageSource(
    const ClusterOptions& options, PolicyProvider policy,
    std::shared_ptr<ClusterMetrics> metrics = nullptr);

}  // namespace gpua::cluster
