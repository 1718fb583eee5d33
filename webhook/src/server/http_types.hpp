// The server's view of one HTTP exchange, free of Beast types, so handlers (the admission
// webhook, a constant "null" handler for load comparison, tests) never include Boost.
#pragma once

#include <chrono>
#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace gpua::server {

struct HttpRequest {
  std::string method;           // "GET", "POST", ...
  std::string target;           // as sent: "/mutate?timeout=10s"
  std::string path;             // target without the query: "/mutate"
  std::string contentType;      // Content-Type header value, empty when absent
  std::string contentEncoding;  // Content-Encoding header value, empty when absent
  std::string body;
  // Empty, with the capacity of the connection's last response body (server/http_server.cpp
  // keeps small ones): a handler may take it for its response's body instead of allocating.
  mutable std::string spareBody;
  // When the first byte of the request arrived: latency is measured from here.
  std::chrono::steady_clock::time_point received = std::chrono::steady_clock::now();
};

struct HttpResponse {
  int status = 200;
  // Always a constant (static storage): a std::string would allocate for most of them.
  std::string_view contentType = "application/json";
  std::string body;
  std::vector<std::pair<std::string, std::string>> headers;  // extra headers, e.g. Allow
  // Not sent: a stable id of the problem for metrics ("unknown-path", "invalid-json"...).
  std::string errorKind;
  // Set when the rest of the answer waits on another service (a quota reservation's apiserver
  // round trips): the server calls it with the same request away from its I/O threads and sends
  // what it returns instead of this response, so TLS handshakes, probes and other requests never
  // queue behind a network wait.
  std::function<HttpResponse(const HttpRequest&)> finishWaiting;

  // A plain-text one-line error, the shape every 4xx/5xx of the server uses.
  static HttpResponse text(int status, std::string message, std::string errorKind = {}) {
    HttpResponse r;
    r.status = status;
    r.errorKind = std::move(errorKind);
    r.contentType = "text/plain; charset=utf-8";
    r.body = std::move(message);
    if (r.body.empty() || r.body.back() != '\n') r.body.push_back('\n');
    return r;
  }
};

using Handler = std::function<HttpResponse(const HttpRequest&)>;

// The answer once every finishWaiting step has run, here and now: for callers that may wait
// (the server's side threads, tests).
inline HttpResponse finished(HttpResponse response, const HttpRequest& request) {
  while (response.finishWaiting) {
    const auto rest = std::exchange(response.finishWaiting, {});
    response = rest(request);
  }
  return response;
}

// Strips "?query" from a request target.
inline std::string_view pathOf(std::string_view target) {
  return target.substr(0, target.find('?'));
}

}  // namespace gpua::server
