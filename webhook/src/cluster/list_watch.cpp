#include "cluster/list_watch.hpp"

#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <cctype>

#include "kube/json.hpp"
#include "kube/json_parse.hpp"

namespace gpua::cluster {

namespace json = kube::json;

namespace asio = boost::asio;
using asio::use_awaitable;

namespace {

// A watch ERROR event with code 410: the resourceVersion fell out of the server's history.
struct Expired : std::runtime_error {
  using std::runtime_error::runtime_error;
};

int64_t unixMillis() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

}  // namespace

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

ListWatch::ListWatch(std::string resource, const ApiConfig& api, ListWatchOptions options,
                     ClusterMetrics& metrics, Handlers handlers)
    : resource_(resource.substr(resource.rfind('/') + 1)),
      path_(resource.find('/') == std::string::npos ? "/api/v1/" + resource : "/apis/" + resource),
      client_(api),
      options_(options),
      metrics_(metrics),
      handlers_(std::move(handlers)),
      backoff_(options_.backoffInitial),
      rng_(std::random_device{}()) {}

void ListWatch::requestRelist() {
  relistRequested_ = true;
  client_.cancel();
}

asio::awaitable<void> ListWatch::run() {
  while (!stopping_) {
    if (relistRequested_) {
      relistRequested_ = false;
      relist_ = true;
      ++metrics_.relists;
    }
    const bool listing = relist_;
    std::string error;
    bool expired = false;
    try {
      if (relist_) co_await list();
      if (relistRequested_) continue;  // the policy changed while listing
      co_await watchOnce();
      countRestart();  // the server ended the watch: resume at once
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
    countRestart();
    if (relistRequested_) continue;  // cancelled on purpose after a policy change
    if (expired && !listing) {
      // History compacted: the watch cannot resume, only a fresh list can.
      relist_ = true;
      ++metrics_.relists;
      log("info", resource_ + " watch expired, re-listing: " + error);
      continue;
    }
    if (expired) relist_ = true;  // a stale continue token: list again from the start
    ++metrics_.apiErrors;
    markUnhealthy(error);
    co_await sleep(jittered(backoff_));
    backoff_ = std::min(backoff_ * 2, options_.backoffMax);
  }
}

asio::awaitable<void> ListWatch::list() {
  handlers_.objects.beginList();
  std::string next, resourceVersion;
  do {
    std::string target = path_ + "?limit=" + std::to_string(options_.listPageSize);
    if (!next.empty()) target += "&continue=" + urlEncode(next);
    const auto body = co_await client_.get(target, options_.requestTimeout);
    rapidjson::Document page;
    if (!kube::parseJson(body, page).ok() || !page.IsObject())
      throw std::runtime_error("malformed " + resource_ + " list from " + client_.config().url());
    if (const auto* items = json::member(page, "items")) handlers_.objects.addPage(*items);
    resourceVersion = json::path(page, "metadata", "resourceVersion");
    next = json::path(page, "metadata", "continue");
  } while (!next.empty());
  handlers_.objects.commitList();
  resourceVersion_ = resourceVersion;
  relist_ = false;
  synced_ = true;
  markHealthy();
  metrics_.lastEventUnixMs = unixMillis();
  handlers_.changed(true);
}

asio::awaitable<void> ListWatch::watchOnce() {
  const std::string target = path_ + "?watch=1&resourceVersion=" + urlEncode(resourceVersion_) +
                             "&allowWatchBookmarks=true" +
                             "&timeoutSeconds=" + std::to_string(options_.watchTimeoutSeconds);
  co_await client_.watch(
      target, options_.requestTimeout, options_.watchIdleTimeout,
      [&] {
        // The policy may have changed while this watch was connecting.
        if (relistRequested_) throw std::runtime_error("policy changed: re-listing " + resource_);
        markHealthy();
        backoff_ = options_.backoffInitial;
      },
      [&](std::string_view line) { onLine(line); });
}

void ListWatch::onLine(std::string_view line) {
  rapidjson::Document event;
  const bool parsed = kube::parseJson(line, event).ok();
  const auto* object = json::member(event, "object");
  if (!parsed || object == nullptr || !object->IsObject())
    throw std::runtime_error("malformed " + resource_ + " watch event from " +
                             client_.config().url());
  const auto type = json::string(json::member(event, "type"));
  if (type == "ERROR") throwWatchError(*object);
  const auto resourceVersion = json::path(*object, "metadata", "resourceVersion");
  if (type != "BOOKMARK") {
    const auto kind = type == "ADDED"     ? inventory::EventType::Added
                      : type == "DELETED" ? inventory::EventType::Deleted
                                          : inventory::EventType::Modified;
    handlers_.objects.applyEvent(kind, *object);
    ++metrics_.eventsApplied;
    handlers_.changed(false);
  }
  metrics_.lastEventUnixMs = unixMillis();
  if (!resourceVersion.empty()) resourceVersion_ = resourceVersion;
}

void ListWatch::throwWatchError(const rapidjson::Value& status) const {
  const auto* code = json::member(status, "code");
  const int c = code != nullptr && code->IsInt() ? code->GetInt() : 500;
  const auto message = describeHttpError(
      c, "WATCH", path_, json::string(json::member(status, "message")), client_.config());
  if (c == 410) throw Expired(message);
  throw ApiError(c, message);
}

void ListWatch::countRestart() {
  ++metrics_.watchRestarts;
  if (handlers_.restarted) handlers_.restarted();
}

void ListWatch::markHealthy() {
  if (!healthy_) log("info", resource_ + " watch connected to " + client_.config().url());
  healthy_ = true;
  lastError_.clear();
}

void ListWatch::markUnhealthy(const std::string& error) {
  if (healthy_) unhealthySince_ = std::chrono::steady_clock::now();
  healthy_ = false;
  lastError_ = error;
  if (handlers_.failed) handlers_.failed(error);
  log("warn", resource_ + ": " + error + " (retrying)");
}

std::chrono::milliseconds ListWatch::jittered(std::chrono::milliseconds d) {
  std::uniform_real_distribution<double> factor(0.8, 1.2);
  return std::chrono::milliseconds(
      static_cast<int64_t>(static_cast<double>(d.count()) * factor(rng_)));
}

asio::awaitable<void> ListWatch::sleep(std::chrono::milliseconds d) {
  asio::steady_timer timer(co_await asio::this_coro::executor);
  timer.expires_after(d);
  co_await timer.async_wait(use_awaitable);
}

void ListWatch::log(std::string_view level, const std::string& message) const {
  if (handlers_.log) handlers_.log(level, message);
}

}  // namespace gpua::cluster
