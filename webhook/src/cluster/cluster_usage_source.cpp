#include "cluster/cluster_usage_source.hpp"

#include <rapidjson/document.h>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <cstdio>
#include <deque>
#include <optional>

#include "cluster/inventory_export.hpp"
#include "cluster/list_watch.hpp"
#include "cluster/prometheus_export.hpp"
#include "cluster/snapshot_publication.hpp"
#include "engine/context/dra_supply.hpp"
#include "inventory/dra_ledger.hpp"
#include "inventory/supply_ledger.hpp"

namespace gpua::cluster {

namespace asio = boost::asio;
using asio::use_awaitable;
using SteadyClock = std::chrono::steady_clock;

namespace {

std::string jsonEscape(std::string_view s) {
  std::string out;
  for (char c : s) {
    if (c == '"' || c == '\\') {
      out.push_back('\\');
      out.push_back(c);
    } else if (static_cast<unsigned char>(c) < 0x20) {
      out.push_back(' ');
    } else {
      out.push_back(c);
    }
  }
  return out;
}

void stderrLog(std::string_view level, std::string_view message) {
  const std::string line = "{\"level\":\"" + std::string(level) +
                           "\",\"component\":\"cluster\",\"msg\":\"" + jsonEscape(message) +
                           "\"}\n";
  std::fputs(line.c_str(), stderr);
}

double unixSeconds() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

std::shared_ptr<const engine::UsageSnapshot> unsyncedSnapshot() {
  auto s = std::make_shared<engine::UsageSnapshot>();
  s->available = false;
  s->unavailableReason = "Kubernetes API not synced yet (initial list in progress)";
  return s;
}

std::shared_ptr<const engine::SupplySnapshot> unavailableSupply(std::string reason) {
  auto s = std::make_shared<engine::SupplySnapshot>();
  s->available = false;
  s->unavailableReason = std::move(reason);
  return s;
}

}  // namespace

class ClusterUsageSource::Runner {
 public:
  Runner(ClusterUsageSource& owner, const ApiConfig& api, ClusterOptions options,
         PolicyProvider policy)
      : owner_(owner),
        options_(std::move(options)),
        policy_(std::move(policy)),
        ledger_(currentPolicy(), options_.clock),
        supply_(ledger_.policy()),
        // One registration per watched resource: its sinks, and the snapshots it feeds.
        pods_("pods", api, options_.listWatch, *owner_.metrics_,
              handlers("pods", podSinks(), true, true)),
        namespaces_("namespaces", api, options_.listWatch, *owner_.metrics_,
                    handlers("namespaces", {ledger_.namespaceSink()}, true, false)) {
    if (!options_.log) options_.log = stderrLog;
    if (options_.watchNodes)
      nodes_.emplace("nodes", api, options_.listWatch, *owner_.metrics_,
                     handlers("nodes", {supply_.nodeSink()}, false, true));
    if (options_.watchDra) watchDra(api);
    if (options_.registry != nullptr) {
      prometheus_ = std::make_unique<PrometheusExport>(*options_.registry, owner_.metrics_);
      export_ = std::make_unique<InventoryExport>(*prometheus_, readings(),
                                                  options_.geSecondsExportInterval,
                                                  options_.supplyPublishInterval);
    }
    if (api.insecureSkipVerify)
      options_.log("warn", "TLS verification of the Kubernetes API is disabled by " + api.origin);
  }

  ~Runner() { stop(); }

  void start() {
    io_ = std::make_unique<asio::io_context>(1);
    for (ListWatch* w : watches()) asio::co_spawn(*io_, w->run(), asio::detached);
    asio::co_spawn(*io_, tick(), asio::detached);
    thread_ = std::thread([this] { io_->run(); });
  }

  void stop() {
    stopping_ = true;
    for (ListWatch* w : watches()) w->stop();
    if (io_) io_->stop();
    if (thread_.joinable()) thread_.join();
    io_.reset();  // destroys suspended coroutines while the clients they use still exist
  }

  std::vector<inventory::GeSeconds> geSeconds() {
    std::lock_guard lock(mutex_);
    return ledger_.geSeconds();
  }

  std::string lastError() const {
    std::lock_guard lock(mutex_);
    return lastError_;
  }

 private:
  std::vector<ListWatch*> watches() {
    std::vector<ListWatch*> all{&pods_, &namespaces_};
    if (nodes_) all.push_back(&*nodes_);
    for (auto& w : dra_) all.push_back(&w);
    return all;
  }

  std::vector<inventory::ListSink> podSinks() {
    std::vector<inventory::ListSink> sinks{ledger_.podSink(), supply_.podSink()};
    if (options_.watchDra) sinks.push_back(draLedger_.podSink());
    return sinks;
  }

  // One list/watch loop per DRA resource, all feeding the DRA ledger; their changes republish
  // usage (claims count in quotas).
  void watchDra(const ApiConfig& api) {
    const std::pair<const char*, inventory::ListSink> resources[] = {
        {"resource.k8s.io/v1/deviceclasses", draLedger_.deviceClassSink()},
        {"resource.k8s.io/v1/resourceclaims", draLedger_.claimSink()},
        {"resource.k8s.io/v1/resourceclaimtemplates", draLedger_.templateSink()},
        {"resource.k8s.io/v1/resourceslices", draLedger_.sliceSink()}};
    for (const auto& [path, sink] : resources) {
      const std::string name = std::string(path).substr(std::string(path).rfind('/') + 1);
      dra_.emplace_back(path, api, options_.listWatch, *owner_.metrics_,
                        handlers(name, {sink}, true, true));
    }
  }

  // The DRA objects once every DRA list has completed; null before (claims unresolved).
  std::shared_ptr<const engine::DraObjects> draObjects() {
    if (dra_.empty()) return nullptr;
    for (const auto& w : dra_)
      if (!w.synced()) return nullptr;
    return draLedger_.objects();
  }

  std::shared_ptr<const policy::PolicySet> currentPolicy() {
    auto p = policy_ ? policy_() : nullptr;
    return p ? p : std::make_shared<const policy::PolicySet>();
  }

  // What the list/watch loop of one resource does: feed every sink of that resource under the
  // ledger lock, and mark the snapshots the change touches (`usage`, `supply`) for publishing.
  ListWatch::Handlers handlers(std::string resource, std::vector<inventory::ListSink> sinks,
                               bool usage, bool supply) {
    ListWatch::Handlers h;
    h.objects.beginList = [this, sinks] {
      std::lock_guard lock(mutex_);
      for (const auto& sink : sinks) sink.beginList();
    };
    h.objects.addPage = [this, sinks](const rapidjson::Value& items) {
      std::lock_guard lock(mutex_);
      for (const auto& sink : sinks) sink.addPage(items);
    };
    h.objects.commitList = [this, sinks] {
      std::lock_guard lock(mutex_);
      for (const auto& sink : sinks) sink.commitList();
    };
    h.objects.applyEvent = [this, sinks](inventory::EventType type,
                                         const rapidjson::Value& object) {
      std::lock_guard lock(mutex_);
      for (const auto& sink : sinks) sink.applyEvent(type, object);
    };
    h.changed = [this, usage, supply](bool listed) {
      if (usage) usagePublication_.markDirty();
      if (supply) supplyPublication_.markDirty();
      if (listed) publish(true);  // the first sync should not wait for the next tick
    };
    h.restarted = [this, resource] {
      if (prometheus_) prometheus_->countWatchRestart(resource);
    };
    h.failed = [this](const std::string& error) {
      std::lock_guard lock(mutex_);
      lastError_ = error;
    };
    h.log = [this](std::string_view level, std::string_view message) {
      options_.log(level, message);
    };
    return h;
  }

  asio::awaitable<void> tick() {
    asio::steady_timer timer(co_await asio::this_coro::executor);
    while (!stopping_) {
      timer.expires_after(options_.publishInterval);
      co_await timer.async_wait(use_awaitable);
      followPolicy();
      publish(false);
      exportInventory();
    }
  }

  // Queue events are drained every tick, observed or not, so they never pile up.
  void exportInventory() {
    std::vector<inventory::ScheduleWait> waits;
    std::vector<inventory::StartFailure> failures;
    {
      std::lock_guard lock(mutex_);
      waits = supply_.takeScheduleWaits();
      failures = supply_.takeStartFailures();
    }
    if (export_) export_->onTick(SteadyClock::now(), waits, failures);
  }

  InventoryReadings readings() {
    return {[this] { return geSeconds(); },
            [this] {
              std::lock_guard lock(mutex_);
              return supply_.pending(unixSeconds());
            },
            [this] { return owner_.current(); }, [this] { return owner_.currentSupply(); },
            [this] { return ledger_.policy(); }};
  }

  // A new policy revision may classify pods differently: re-list them under it. Nodes are
  // re-listed only when the policy names resources they were decoded without.
  void followPolicy() {
    auto latest = currentPolicy();
    std::lock_guard lock(mutex_);
    if (latest == ledger_.policy()) return;
    const bool reclassify = latest->revision != ledger_.policy()->revision;
    ledger_.setPolicy(latest);
    const bool nodeResourcesChanged = supply_.setPolicy(latest);
    usagePublication_.markDirty();
    supplyPublication_.markDirty();
    if (reclassify) pods_.requestRelist();
    if (nodeResourcesChanged && nodes_) nodes_->requestRelist();
  }

  void publish(bool listed) {
    publishUsage();
    publishSupply(listed);
  }

  void publishUsage() {
    auto a = availability({&pods_, &namespaces_});
    const auto now = SteadyClock::now();
    if (!usagePublication_.due(a, now)) return;
    std::shared_ptr<const engine::UsageSnapshot> snapshot;
    {
      std::lock_guard lock(mutex_);
      snapshot = ledger_.snapshot(a.available, a.reason, draObjects());
      owner_.metrics_->ledgerPods = ledger_.podCount();
      owner_.metrics_->ledgerNamespaces = ledger_.namespaceCount();
    }
    owner_.metrics_->available = a.available;
    if (pods_.synced() && namespaces_.synced()) owner_.metrics_->synced = true;
    log(usagePublication_.publish(std::move(snapshot), owner_.snapshot_, owner_.snapshotMutex_,
                                  std::move(a), now, "GPU usage from the Kubernetes API is live",
                                  "quota checks have no live usage: "));
  }

  // Supply copies every node, so it is published at most once per supplyPublishInterval,
  // except right after a list completed.
  void publishSupply(bool listed) {
    if (!nodes_) return;
    auto a = availability({&*nodes_, &pods_});
    const auto now = SteadyClock::now();
    const auto interval = listed ? SteadyClock::duration::zero()
                                 : SteadyClock::duration(options_.supplyPublishInterval);
    if (!supplyPublication_.due(a, now, interval)) return;
    auto snapshot = a.available ? summarizedSupply() : unavailableSupply(a.reason);
    if (a.available) owner_.metrics_->supplySynced = true;
    log(supplyPublication_.publish(std::move(snapshot), owner_.supply_, owner_.snapshotMutex_,
                                   std::move(a), now, "GPU supply from the Kubernetes API is live",
                                   "capacity checks have no live supply: "));
  }

  std::shared_ptr<const engine::SupplySnapshot> summarizedSupply() {
    std::vector<engine::NodeSupply> nodes;
    std::vector<engine::PendingQueue> pending;
    {
      std::lock_guard lock(mutex_);
      nodes = supply_.nodes();
      pending = supply_.pending(unixSeconds());
      // Node-local ResourceSlices add their GPU devices (and KEP-5004's mapped names).
      if (const auto dra = draObjects()) engine::addDraSupply(nodes, *dra, *ledger_.policy());
      owner_.metrics_->ledgerNodes = supply_.nodeCount();
    }
    // Folded per pool here, once per publish, so no request ever walks the nodes.
    return std::make_shared<const engine::SupplySnapshot>(
        engine::summarizeSupply({std::move(nodes), std::move(pending)}, *ledger_.policy()));
  }

  void log(const std::pair<std::string_view, std::string>& line) {
    if (!line.second.empty()) options_.log(line.first, line.second);
  }

  Availability availability(std::initializer_list<const ListWatch*> ws) const {
    // Not synced: name the error of a failing watch, else the list still in progress.
    const ListWatch* unsynced = nullptr;
    for (const ListWatch* w : ws)
      if (!w->synced() && (unsynced == nullptr || unsynced->lastError().empty())) unsynced = w;
    if (unsynced != nullptr)
      return {false, "Kubernetes API not synced yet: " +
                         (unsynced->lastError().empty()
                              ? "initial list of " + unsynced->resource() + " in progress"
                              : unsynced->lastError())};
    const auto now = SteadyClock::now();
    for (const ListWatch* w : ws)
      if (!w->healthy() && now - w->unhealthySince() >= options_.unavailableGrace)
        return {false,
                "Kubernetes API unreachable (" + w->resource() + " watch broken for more than " +
                    std::to_string(options_.unavailableGrace.count()) + " ms): " + w->lastError()};
    return {true, ""};
  }

  ClusterUsageSource& owner_;
  ClusterOptions options_;
  PolicyProvider policy_;
  mutable std::mutex mutex_;  // the ledgers and lastError_: read by metrics scrapes
  inventory::Ledger ledger_;
  inventory::SupplyLedger supply_;
  inventory::DraLedger draLedger_;
  std::string lastError_;
  ListWatch pods_, namespaces_;
  std::optional<ListWatch> nodes_;
  std::deque<ListWatch> dra_;  // ListWatch is not movable: a deque keeps them in place
  Publication usagePublication_;
  Publication supplyPublication_;
  std::unique_ptr<PrometheusExport> prometheus_;
  std::unique_ptr<InventoryExport> export_;  // observes the ledgers for prometheus_
  std::atomic<bool> stopping_{false};
  std::unique_ptr<asio::io_context> io_;
  std::thread thread_;
};

ClusterUsageSource::ClusterUsageSource(ApiConfig api, ClusterOptions options, PolicyProvider policy,
                                       std::shared_ptr<ClusterMetrics> metrics)
    : metrics_(metrics ? std::move(metrics) : std::make_shared<ClusterMetrics>()),
      snapshot_(unsyncedSnapshot()),
      supply_(unavailableSupply(options.watchNodes
                                    ? "Kubernetes API not synced yet (initial list of nodes)"
                                    : "no node source (node watch is off)")) {
  if (!options.clock) {
    options.clock = [] {
      return std::chrono::duration<double>(SteadyClock::now().time_since_epoch()).count();
    };
  }
  runner_ = std::make_unique<Runner>(*this, api, std::move(options), std::move(policy));
}

ClusterUsageSource::~ClusterUsageSource() {
  stop();
}

void ClusterUsageSource::start() {
  runner_->start();
}

void ClusterUsageSource::stop() {
  if (runner_) runner_->stop();
}

std::shared_ptr<const engine::UsageSnapshot> ClusterUsageSource::current() const {
  std::lock_guard lock(snapshotMutex_);
  return snapshot_;
}

std::shared_ptr<const engine::SupplySnapshot> ClusterUsageSource::currentSupply() const {
  std::lock_guard lock(snapshotMutex_);
  return supply_;
}

std::vector<inventory::GeSeconds> ClusterUsageSource::geSeconds() {
  return runner_->geSeconds();
}

std::string ClusterUsageSource::lastError() const {
  return runner_->lastError();
}

ApiConfig apiConfigOf(const ClusterOptions& options) {
  return options.kubeconfig.empty() ? loadInClusterConfig(options.serviceAccountDir)
                                    : loadKubeconfig(options.kubeconfig, options.context);
}

std::shared_ptr<ClusterUsageSource> startClusterUsageSource(
    const ClusterOptions& options, PolicyProvider policy, std::shared_ptr<ClusterMetrics> metrics) {
  ApiConfig api = apiConfigOf(options);
  auto source = std::make_shared<ClusterUsageSource>(std::move(api), options, std::move(policy),
                                                     std::move(metrics));
  source->start();
  return source;
}

}  // namespace gpua::cluster
