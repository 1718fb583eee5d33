#include "cluster/cluster_usage_source.hpp"

#include <rapidjson/document.h>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/system/system_error.hpp>

#include <cstdio>
#include <random>

#include "cluster/api_client.hpp"
#include "cluster/json_util.hpp"
#include "cluster/prometheus_export.hpp"

namespace gpua::cluster {

namespace asio = boost::asio;
using asio::use_awaitable;
using SteadyClock = std::chrono::steady_clock;

namespace {

// A watch ERROR event with code 410: the resourceVersion fell out of the server's history.
struct Expired : std::runtime_error {
  using std::runtime_error::runtime_error;
};

std::string urlEncode(std::string_view s) {
  static const char* hex = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : s) {
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~') {
      out.push_back(static_cast<char>(c));
    } else {
      out.push_back('%');
      out.push_back(hex[c >> 4]);
      out.push_back(hex[c & 15]);
    }
  }
  return out;
}

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

int64_t unixMillis() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

std::shared_ptr<const engine::UsageSnapshot> unsyncedSnapshot() {
  auto s = std::make_shared<engine::UsageSnapshot>();
  s->available = false;
  s->unavailableReason = "Kubernetes API not synced yet (initial list in progress)";
  return s;
}

}  // namespace

// One listed-and-watched resource (pods or namespaces).
struct ClusterUsageSource::Watch {
  Watch(std::string n, ApiConfig api) : name(std::move(n)), path("/api/v1/" + name), client(api) {}
  std::string name;
  std::string path;
  ApiClient client;
  std::string resourceVersion;
  bool relist = true;            // list before the next watch
  bool relistRequested = false;  // the policy changed: reclassify every pod
  bool synced = false;           // a full list has completed once
  bool healthy = false;          // the last list or watch open succeeded
  SteadyClock::time_point unhealthySince = SteadyClock::now();
  std::string lastError;
  std::chrono::milliseconds backoff{0};
};

class ClusterUsageSource::Runner {
 public:
  Runner(ClusterUsageSource& owner, ApiConfig api, ClusterOptions options, PolicyProvider policy)
      : owner_(owner),
        options_(std::move(options)),
        policy_(std::move(policy)),
        ledger_(currentPolicy(), options_.clock),
        pods_("pods", api),
        namespaces_("namespaces", api),
        rng_(std::random_device{}()) {
    if (!options_.log) options_.log = stderrLog;
    if (options_.registry != nullptr)
      prometheus_ = std::make_unique<PrometheusExport>(*options_.registry, owner_.metrics_);
    pods_.backoff = namespaces_.backoff = options_.backoffInitial;
    if (api.insecureSkipVerify)
      options_.log("warn", "TLS verification of the Kubernetes API is disabled by " + api.origin);
  }

  ~Runner() { stop(); }

  void start() {
    io_ = std::make_unique<asio::io_context>(1);
    asio::co_spawn(*io_, run(pods_), asio::detached);
    asio::co_spawn(*io_, run(namespaces_), asio::detached);
    asio::co_spawn(*io_, tick(), asio::detached);
    thread_ = std::thread([this] { io_->run(); });
  }

  void stop() {
    stopping_ = true;
    if (io_) io_->stop();
    if (thread_.joinable()) thread_.join();
    io_.reset();  // destroys suspended coroutines while the clients they use still exist
  }

  std::vector<GeSeconds> geSeconds() {
    std::lock_guard lock(mutex_);
    return ledger_.geSeconds();
  }

  std::string lastError() const {
    std::lock_guard lock(mutex_);
    return lastError_;
  }

 private:
  std::shared_ptr<const policy::PolicySet> currentPolicy() {
    auto p = policy_ ? policy_() : nullptr;
    return p ? p : std::make_shared<const policy::PolicySet>();
  }

  asio::awaitable<void> run(Watch& w) {
    while (!stopping_) {
      if (w.relistRequested) {
        w.relistRequested = false;
        w.relist = true;
        ++owner_.metrics_->relists;
      }
      const bool listing = w.relist;
      std::string error;
      bool expired = false;
      try {
        if (w.relist) co_await list(w);
        if (w.relistRequested) continue;  // the policy changed while listing
        co_await watchOnce(w);
        countRestart(w);  // the server ended the watch: resume at once
        continue;
      } catch (const Expired& e) {
        expired = true;
        error = e.what();
      } catch (const ApiError& e) {
        expired = e.status() == 410;
        error = e.what();
      } catch (const std::exception& e) {
        error = e.what();
      }
      if (stopping_) co_return;
      countRestart(w);
      if (w.relistRequested) continue;  // cancelled on purpose after a policy change
      if (expired && !listing) {
        // History compacted: the watch cannot resume, only a fresh list can.
        w.relist = true;
        ++owner_.metrics_->relists;
        options_.log("info", w.name + " watch expired, re-listing: " + error);
        continue;
      }
      if (expired) w.relist = true;  // a stale continue token: list again from the start
      ++owner_.metrics_->apiErrors;
      markUnhealthy(w, error);
      co_await sleep(jittered(w.backoff));
      w.backoff = std::min(w.backoff * 2, options_.backoffMax);
    }
  }

  asio::awaitable<void> list(Watch& w) {
    {
      std::lock_guard lock(mutex_);
      w.name == "pods" ? ledger_.beginPodList() : ledger_.beginNamespaceList();
    }
    std::string next, resourceVersion;
    do {
      std::string target = w.path + "?limit=" + std::to_string(options_.listPageSize);
      if (!next.empty()) target += "&continue=" + urlEncode(next);
      const auto body = co_await w.client.get(target, options_.requestTimeout);
      rapidjson::Document page;
      page.Parse(body.data(), body.size());
      if (page.HasParseError() || !page.IsObject())
        throw std::runtime_error("malformed " + w.name + " list from " + w.client.config().url());
      if (const auto* items = json::member(page, "items")) {
        std::lock_guard lock(mutex_);
        w.name == "pods" ? ledger_.addPodPage(*items) : ledger_.addNamespacePage(*items);
      }
      resourceVersion = json::path(page, "metadata", "resourceVersion");
      next = json::path(page, "metadata", "continue");
    } while (!next.empty());
    {
      std::lock_guard lock(mutex_);
      w.name == "pods" ? ledger_.commitPodList() : ledger_.commitNamespaceList();
    }
    w.resourceVersion = resourceVersion;
    w.relist = false;
    w.synced = true;
    markHealthy(w);
    owner_.metrics_->lastEventUnixMs = unixMillis();
    dirty_ = true;
    publish();  // the first sync should not wait for the next tick
  }

  asio::awaitable<void> watchOnce(Watch& w) {
    const std::string target = w.path + "?watch=1&resourceVersion=" + urlEncode(w.resourceVersion) +
                               "&allowWatchBookmarks=true" +
                               "&timeoutSeconds=" + std::to_string(options_.watchTimeoutSeconds);
    co_await w.client.watch(
        target, options_.requestTimeout, options_.watchIdleTimeout,
        [&] {
          // The policy may have changed while this watch was connecting.
          if (w.relistRequested) throw std::runtime_error("policy changed: re-listing " + w.name);
          markHealthy(w);
          w.backoff = options_.backoffInitial;
        },
        [&](std::string_view line) { onLine(w, line); });
  }

  void onLine(Watch& w, std::string_view line) {
    rapidjson::Document event;
    event.Parse(line.data(), line.size());
    const auto* object = json::member(event, "object");
    if (event.HasParseError() || object == nullptr || !object->IsObject())
      throw std::runtime_error("malformed " + w.name + " watch event from " +
                               w.client.config().url());
    const auto type = json::string(json::member(event, "type"));
    if (type == "ERROR") throwWatchError(w, *object);
    const auto resourceVersion = json::path(*object, "metadata", "resourceVersion");
    if (type != "BOOKMARK") {
      const auto kind = type == "ADDED"     ? EventType::Added
                        : type == "DELETED" ? EventType::Deleted
                                            : EventType::Modified;
      std::lock_guard lock(mutex_);
      w.name == "pods" ? ledger_.applyPodEvent(kind, *object)
                       : ledger_.applyNamespaceEvent(kind, *object);
      ++owner_.metrics_->eventsApplied;
      dirty_ = true;
    }
    owner_.metrics_->lastEventUnixMs = unixMillis();
    if (!resourceVersion.empty()) w.resourceVersion = resourceVersion;
  }

  [[noreturn]] void throwWatchError(const Watch& w, const rapidjson::Value& status) {
    const auto* code = json::member(status, "code");
    const int c = code != nullptr && code->IsInt() ? code->GetInt() : 500;
    const auto message = describeHttpError(
        c, "WATCH", w.path, json::string(json::member(status, "message")), w.client.config());
    if (c == 410) throw Expired(message);
    throw ApiError(c, message);
  }

  asio::awaitable<void> tick() {
    asio::steady_timer timer(co_await asio::this_coro::executor);
    while (!stopping_) {
      timer.expires_after(options_.publishInterval);
      co_await timer.async_wait(use_awaitable);
      followPolicy();
      publish();
      exportGeSeconds();
    }
  }

  void countRestart(const Watch& w) {
    ++owner_.metrics_->watchRestarts;
    if (prometheus_) prometheus_->countWatchRestart(w.name);
  }

  void exportGeSeconds() {
    if (!prometheus_) return;
    const auto now = SteadyClock::now();
    if (now - lastGeExport_ < options_.geSecondsExportInterval) return;
    lastGeExport_ = now;
    prometheus_->exportGeSeconds(geSeconds());
  }

  // A new policy revision may classify pods differently: re-list them under it.
  void followPolicy() {
    auto latest = currentPolicy();
    std::lock_guard lock(mutex_);
    if (latest == ledger_.policy()) return;
    const bool reclassify = latest->revision != ledger_.policy()->revision;
    ledger_.setPolicy(latest);
    dirty_ = true;
    if (!reclassify) return;
    pods_.relistRequested = true;
    pods_.client.cancel();
  }

  void publish() {
    auto [available, reason] = availability();
    if (!dirty_ && published_ && available == publishedAvailable_ && reason == publishedReason_)
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
    if (pods_.synced && namespaces_.synced) owner_.metrics_->synced = true;
    dirty_ = false;
    published_ = true;
    publishedAvailable_ = available;
    publishedReason_ = reason;
  }

  std::pair<bool, std::string> availability() const {
    if (!pods_.synced || !namespaces_.synced) {
      const auto& failing = !pods_.lastError.empty() ? pods_ : namespaces_;
      return {false, "Kubernetes API not synced yet: " +
                         (failing.lastError.empty() ? std::string("initial list in progress")
                                                    : failing.lastError)};
    }
    const auto now = SteadyClock::now();
    for (const Watch* w : {&pods_, &namespaces_})
      if (!w->healthy && now - w->unhealthySince >= options_.unavailableGrace)
        return {false, "Kubernetes API unreachable (" + w->name + " watch broken for more than " +
                           std::to_string(options_.unavailableGrace.count()) +
                           " ms): " + w->lastError};
    return {true, ""};
  }

  void markHealthy(Watch& w) {
    if (!w.healthy) options_.log("info", w.name + " watch connected to " + w.client.config().url());
    w.healthy = true;
    w.lastError.clear();
  }

  void markUnhealthy(Watch& w, const std::string& error) {
    if (w.healthy) w.unhealthySince = SteadyClock::now();
    w.healthy = false;
    w.lastError = error;
    {
      std::lock_guard lock(mutex_);
      lastError_ = error;
    }
    options_.log("warn", w.name + ": " + error + " (retrying)");
  }

  std::chrono::milliseconds jittered(std::chrono::milliseconds d) {
    std::uniform_real_distribution<double> factor(0.8, 1.2);
    return std::chrono::milliseconds(
        static_cast<int64_t>(static_cast<double>(d.count()) * factor(rng_)));
  }

  asio::awaitable<void> sleep(std::chrono::milliseconds d) {
    asio::steady_timer timer(co_await asio::this_coro::executor);
    timer.expires_after(d);
    co_await timer.async_wait(use_awaitable);
  }

  ClusterUsageSource& owner_;
  ClusterOptions options_;
  PolicyProvider policy_;
  mutable std::mutex mutex_;  // ledger_ and lastError_: read by metrics scrapes
  Ledger ledger_;
  std::string lastError_;
  Watch pods_, namespaces_;
  std::mt19937 rng_;
  bool dirty_ = true;
  bool published_ = false;
  bool publishedAvailable_ = false;
  std::string publishedReason_;
  std::unique_ptr<PrometheusExport> prometheus_;
  SteadyClock::time_point lastGeExport_{};
  std::atomic<bool> stopping_{false};
  std::unique_ptr<asio::io_context> io_;
  std::thread thread_;
};

ClusterUsageSource::ClusterUsageSource(ApiConfig api, ClusterOptions options, PolicyProvider policy,
                                       std::shared_ptr<ClusterMetrics> metrics)
    : metrics_(metrics ? std::move(metrics) : std::make_shared<ClusterMetrics>()),
      snapshot_(unsyncedSnapshot()) {
  if (!options.clock) {
    options.clock = [] {
      return std::chrono::duration<double>(SteadyClock::now().time_since_epoch()).count();
    };
  }
  runner_ = std::make_unique<Runner>(*this, std::move(api), std::move(options), std::move(policy));
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

std::vector<GeSeconds> ClusterUsageSource::geSeconds() {
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
