// One Kubernetes resource kept in sync by list + watch, with the resilience every resource
// needs: paginated lists (limit/continue), watch streams with bookmarks, a fresh list when the
// history expired (410 Gone), jittered exponential backoff, and bearer tokens re-read on every
// request (ApiClient), so rotated service account tokens keep working. Pods, namespaces and nodes
// share this one loop; what a resource does with its objects is in its Handlers.
//
// Runs as a coroutine on the owner's single-threaded io_context; not thread-safe otherwise.
#pragma once

#include <utility>  // before awaitable.hpp: Boost 1.74 uses std::exchange without it

#include <rapidjson/document.h>

#include <boost/asio/awaitable.hpp>

#include <atomic>
#include <chrono>
#include <functional>
#include <random>
#include <string>
#include <string_view>

#include "cluster/api_client.hpp"
#include "cluster/list_watch_options.hpp"
#include "cluster/metrics.hpp"
#include "inventory/list_sink.hpp"

namespace gpua::cluster {

class ListWatch {
 public:
  // What the resource does with what the API sends. Called on the watch's executor; a full list
  // is beginList, addPage per page, commitList (a failed list is never committed).
  struct Handlers {
    inventory::ListSink objects;               // where the listed pages and the events go
    std::function<void(bool listed)> changed;  // after a commit (listed) or an applied event
    std::function<void()> restarted;           // a watch stream ended (for the restart metric)
    std::function<void(const std::string& error)> failed;  // a list or watch failed
    std::function<void(std::string_view level, std::string_view message)> log;
  };

  // `resource` is the plural name under /api/v1 ("pods", "namespaces", "nodes"), or
  // "<group>/<version>/<plural>" under /apis ("resource.k8s.io/v1/resourceclaims"); metrics and
  // messages name it by its plural.
  ListWatch(std::string resource, const ApiConfig& api, ListWatchOptions options,
            ClusterMetrics& metrics, Handlers handlers);

  // Lists and watches until stop(); never throws.
  boost::asio::awaitable<void> run();
  void stop() { stopping_ = true; }

  // Drops the watch in flight and lists again (a policy change that reclassifies everything).
  void requestRelist();

  const std::string& resource() const { return resource_; }
  bool synced() const { return synced_; }    // a full list has completed once
  bool healthy() const { return healthy_; }  // the last list or watch open succeeded
  std::chrono::steady_clock::time_point unhealthySince() const { return unhealthySince_; }
  const std::string& lastError() const { return lastError_; }

 private:
  boost::asio::awaitable<void> list();
  boost::asio::awaitable<void> watchOnce();
  void onLine(std::string_view line);
  [[noreturn]] void throwWatchError(const rapidjson::Value& status) const;
  void countRestart();
  void markHealthy();
  void markUnhealthy(const std::string& error);
  std::chrono::milliseconds jittered(std::chrono::milliseconds d);
  boost::asio::awaitable<void> sleep(std::chrono::milliseconds d);
  void log(std::string_view level, const std::string& message) const;

  std::string resource_;
  std::string path_;
  ApiClient client_;
  ListWatchOptions options_;
  ClusterMetrics& metrics_;
  Handlers handlers_;
  std::string resourceVersion_;
  bool relist_ = true;            // list before the next watch
  bool relistRequested_ = false;  // requestRelist() since the last list started
  bool synced_ = false;
  bool healthy_ = false;
  std::chrono::steady_clock::time_point unhealthySince_ = std::chrono::steady_clock::now();
  std::string lastError_;
  std::chrono::milliseconds backoff_;
  std::mt19937 rng_;
  std::atomic<bool> stopping_{false};
};

// Percent-encodes a query parameter value (continue tokens, resource versions).
std::string urlEncode(std::string_view s);

}  // namespace gpua::cluster
