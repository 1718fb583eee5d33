#include "cluster/cluster_usage_source.hpp"

#include <rapidjson/document.h>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <cstdio>
#include <optional>

#include "cluster/list_watch.hpp"
#include "cluster/prometheus_export.hpp"
#include "inventory/quota_usage.hpp"
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

ListWatchOptions listWatchOptions(const ClusterOptions& o) {
  return {o.backoffInitial,   o.backoffMax,          o.requestTimeout,
          o.watchIdleTimeout, o.watchTimeoutSeconds, o.listPageSize};
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
        pods_("pods", api, listWatchOptions(options_), *owner_.metrics_, podHandlers()),
        namespaces_("namespaces", api, listWatchOptions(options_), *owner_.metrics_,
                    namespaceHandlers()) {
    if (!options_.log) options_.log = stderrLog;
    if (options_.watchNodes)
      nodes_.emplace("nodes", api, listWatchOptions(options_), *owner_.metrics_, nodeHandlers());
    if (options_.registry != nullptr)
      prometheus_ = std::make_unique<PrometheusExport>(*options_.registry, owner_.metrics_);
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
    return all;
  }

  std::shared_ptr<const policy::PolicySet> currentPolicy() {
    auto p = policy_ ? policy_() : nullptr;
    return p ? p : std::make_shared<const policy::PolicySet>();
  }

  // Handlers common to every resource; `dirty` says which snapshots the change touches.
  ListWatch::Handlers handlers(std::string resource, bool usage, bool supply) {
    ListWatch::Handlers h;
    h.changed = [this, usage, supply](bool listed) {
      usageDirty_ = usageDirty_ || usage;
      supplyDirty_ = supplyDirty_ || supply;
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

  ListWatch::Handlers podHandlers() {
    auto h = handlers("pods", true, true);
    h.beginList = [this] {
      std::lock_guard lock(mutex_);
      ledger_.beginPodList();
      supply_.beginPodList();
    };
    h.addPage = [this](const rapidjson::Value& items) {
      std::lock_guard lock(mutex_);
      ledger_.addPodPage(items);
      supply_.addPodPage(items);
    };
    h.commitList = [this] {
      std::lock_guard lock(mutex_);
      ledger_.commitPodList();
      supply_.commitPodList();
    };
    h.applyEvent = [this](inventory::EventType type, const rapidjson::Value& pod) {
      std::lock_guard lock(mutex_);
      ledger_.applyPodEvent(type, pod);
      supply_.applyPodEvent(type, pod);
    };
    return h;
  }

  ListWatch::Handlers namespaceHandlers() {
    auto h = handlers("namespaces", true, false);
    h.beginList = [this] {
      std::lock_guard lock(mutex_);
      ledger_.beginNamespaceList();
    };
    h.addPage = [this](const rapidjson::Value& items) {
      std::lock_guard lock(mutex_);
      ledger_.addNamespacePage(items);
    };
    h.commitList = [this] {
      std::lock_guard lock(mutex_);
      ledger_.commitNamespaceList();
    };
    h.applyEvent = [this](inventory::EventType type, const rapidjson::Value& ns) {
      std::lock_guard lock(mutex_);
      ledger_.applyNamespaceEvent(type, ns);
    };
    return h;
  }

  ListWatch::Handlers nodeHandlers() {
    auto h = handlers("nodes", false, true);
    h.beginList = [this] {
      std::lock_guard lock(mutex_);
      supply_.beginNodeList();
    };
    h.addPage = [this](const rapidjson::Value& items) {
      std::lock_guard lock(mutex_);
      supply_.addNodePage(items);
    };
    h.commitList = [this] {
      std::lock_guard lock(mutex_);
      supply_.commitNodeList();
    };
    h.applyEvent = [this](inventory::EventType type, const rapidjson::Value& node) {
      std::lock_guard lock(mutex_);
      supply_.applyNodeEvent(type, node);
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
      exportGeSeconds();
      exportQueue();
    }
  }

  void exportGeSeconds() {
    if (!prometheus_) return;
    const auto now = SteadyClock::now();
    if (now - lastGeExport_ < options_.geSecondsExportInterval) return;
    lastGeExport_ = now;
    prometheus_->exportGeSeconds(geSeconds());
  }

  // Queue observations are drained every tick (so they never pile up); gauges follow the
  // published snapshots at most once per supplyPublishInterval.
  void exportQueue() {
    std::vector<inventory::ScheduleWait> waits;
    std::vector<inventory::StartFailure> failures;
    std::vector<engine::PendingQueue> pending;
    const auto now = SteadyClock::now();
    const bool gauges = now - lastQueueExport_ >= options_.supplyPublishInterval;
    {
      std::lock_guard lock(mutex_);
      waits = supply_.takeScheduleWaits();
      failures = supply_.takeStartFailures();
      if (gauges && prometheus_) pending = supply_.pending(unixSeconds());
    }
    if (!prometheus_) return;
    prometheus_->observeScheduleWaits(waits);
    prometheus_->countStartFailures(failures);
    if (!gauges) return;
    lastQueueExport_ = now;
    prometheus_->exportPending(pending);
    const auto usage = owner_.current();
    if (usage->available)
      prometheus_->exportQuotas(inventory::quotaFigures(*ledger_.policy(), *usage));
    const auto supply = owner_.currentSupply();
    if (supply->available && supply != exportedSupply_) prometheus_->exportSupply(*supply);
    exportedSupply_ = supply;
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
    usageDirty_ = supplyDirty_ = true;
    if (reclassify) pods_.requestRelist();
    if (nodeResourcesChanged && nodes_) nodes_->requestRelist();
  }

  void publish(bool listed) {
    publishUsage();
    publishSupply(listed);
  }

  void publishUsage() {
    auto [available, reason] = usageAvailability();
    if (!usageDirty_ && published_ && available == publishedAvailable_ &&
        reason == publishedReason_)
      return;
    std::shared_ptr<const engine::UsageSnapshot> snapshot;
    {
      std::lock_guard lock(mutex_);
      snapshot = ledger_.snapshot(available, reason);
      owner_.metrics_->ledgerPods = ledger_.podCount();
      owner_.metrics_->ledgerNamespaces = ledger_.namespaceCount();
    }
    {
      std::lock_guard lock(owner_.snapshotMutex_);
      owner_.snapshot_ = std::move(snapshot);
    }
    if (available != publishedAvailable_ || !published_)
      options_.log(available ? "info" : "warn", available
                                                    ? "GPU usage from the Kubernetes API is live"
                                                    : "quota checks have no live usage: " + reason);
    owner_.metrics_->available = available;
    if (pods_.synced() && namespaces_.synced()) owner_.metrics_->synced = true;
    usageDirty_ = false;
    published_ = true;
    publishedAvailable_ = available;
    publishedReason_ = reason;
  }

  // Supply copies every node, so it is published at most once per supplyPublishInterval,
  // except right after a list completed.
  void publishSupply(bool listed) {
    if (!nodes_) return;
    auto [available, reason] = supplyAvailability();
    const bool availabilityChanged =
        !supplyPublished_ || available != supplyAvailable_ || reason != supplyReason_;
    const auto now = SteadyClock::now();
    if (!availabilityChanged &&
        (!supplyDirty_ || (!listed && now - lastSupplyPublish_ < options_.supplyPublishInterval)))
      return;
    std::shared_ptr<const engine::SupplySnapshot> snapshot;
    if (!available) {
      snapshot = unavailableSupply(reason);
    } else {
      std::vector<engine::NodeSupply> nodes;
      std::vector<engine::PendingQueue> pending;
      {
        std::lock_guard lock(mutex_);
        nodes = supply_.nodes();
        pending = supply_.pending(unixSeconds());
        owner_.metrics_->ledgerNodes = supply_.nodeCount();
      }
      // Folded per pool here, once per publish, so no request ever walks the nodes.
      snapshot = std::make_shared<const engine::SupplySnapshot>(
          engine::summarizeSupply(std::move(nodes), std::move(pending), *ledger_.policy()));
    }
    {
      std::lock_guard lock(owner_.snapshotMutex_);
      owner_.supply_ = std::move(snapshot);
    }
    if (availabilityChanged)
      options_.log(available ? "info" : "warn",
                   available ? "GPU supply from the Kubernetes API is live"
                             : "capacity checks have no live supply: " + reason);
    if (available) owner_.metrics_->supplySynced = true;
    supplyDirty_ = false;
    supplyPublished_ = true;
    supplyAvailable_ = available;
    supplyReason_ = reason;
    lastSupplyPublish_ = now;
  }

  std::pair<bool, std::string> availability(std::initializer_list<const ListWatch*> ws) const {
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

  std::pair<bool, std::string> usageAvailability() const {
    return availability({&pods_, &namespaces_});
  }

  std::pair<bool, std::string> supplyAvailability() const {
    return availability({&*nodes_, &pods_});
  }

  ClusterUsageSource& owner_;
  ClusterOptions options_;
  PolicyProvider policy_;
  mutable std::mutex mutex_;  // the ledgers and lastError_: read by metrics scrapes
  inventory::Ledger ledger_;
  inventory::SupplyLedger supply_;
  std::string lastError_;
  ListWatch pods_, namespaces_;
  std::optional<ListWatch> nodes_;
  bool usageDirty_ = true;
  bool published_ = false;
  bool publishedAvailable_ = false;
  std::string publishedReason_;
  bool supplyDirty_ = true;
  bool supplyPublished_ = false;
  bool supplyAvailable_ = false;
  std::string supplyReason_;
  SteadyClock::time_point lastSupplyPublish_{};
  std::unique_ptr<PrometheusExport> prometheus_;
  SteadyClock::time_point lastGeExport_{};
  SteadyClock::time_point lastQueueExport_{};
  std::shared_ptr<const engine::SupplySnapshot> exportedSupply_;
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

std::shared_ptr<ClusterUsageSource> startClusterUsageSource(
    const ClusterOptions& options, PolicyProvider policy, std::shared_ptr<ClusterMetrics> metrics) {
  ApiConfig api = options.kubeconfig.empty() ? loadInClusterConfig(options.serviceAccountDir)
                                             : loadKubeconfig(options.kubeconfig, options.context);
  auto source = std::make_shared<ClusterUsageSource>(std::move(api), options, std::move(policy),
                                                     std::move(metrics));
  source->start();
  return source;
}

}  // namespace gpua::cluster
