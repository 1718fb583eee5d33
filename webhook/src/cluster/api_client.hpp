// HTTPS GET and watch streams against the Kubernetes API (Boost.Beast + OpenSSL, certificate
// and host name verification). Coroutine-based: one connection per request, run on the
// caller's executor. Transport failures surface as boost::system::system_error, HTTP failures
// as ApiError with a message that names the request and what to fix.
#pragma once

#include <utility>  // before awaitable.hpp: Boost 1.74 uses std::exchange without it

#include <boost/asio/awaitable.hpp>
#include <boost/asio/ssl/context.hpp>

#include <chrono>
#include <functional>
#include <stdexcept>
#include <string>
#include <string_view>

#include "cluster/api_config.hpp"

namespace gpua::cluster {

class ApiError : public std::runtime_error {
 public:
  ApiError(int status, const std::string& message) : std::runtime_error(message), status_(status) {}
  int status() const { return status_; }

 private:
  int status_;
};

// Explains an HTTP failure: 401 = credentials, 403 = the RBAC rule to grant, 410 = expired.
// `apiMessage` is Status.message from the response body, when there is one.
std::string describeHttpError(int status, std::string_view method, std::string_view target,
                              std::string_view apiMessage, const ApiConfig& config);

// An answer of any status (send() does not throw for 4xx/5xx): the caller decides what a 404 or a
// 409 means.
struct ApiResponse {
  int status = 0;
  std::string body;
  std::string message() const;  // Status.message of an error body, else its first 200 bytes
};

class ApiClient {
 public:
  // Throws ClusterConfigError when the CA or client certificate cannot be loaded.
  explicit ApiClient(ApiConfig config);

  // The whole body of a 200 response; ApiError otherwise.
  boost::asio::awaitable<std::string> get(std::string target, std::chrono::milliseconds timeout);

  // One request with a JSON body (empty for GET/DELETE). Transport failures throw as for get().
  boost::asio::awaitable<ApiResponse> send(std::string method, std::string target, std::string body,
                                           std::chrono::milliseconds timeout);

  // Streams a watch: onOpen() once the server answered 200, then onLine() for every complete
  // newline-terminated line. Returns when the server ends the stream; throws on errors and
  // when no byte arrives within idleTimeout.
  boost::asio::awaitable<void> watch(std::string target, std::chrono::milliseconds connectTimeout,
                                     std::chrono::milliseconds idleTimeout,
                                     std::function<void()> onOpen,
                                     std::function<void(std::string_view)> onLine);

  // Aborts the watch in flight (call on the executor that runs it).
  void cancel();

  const ApiConfig& config() const { return config_; }

 private:
  ApiConfig config_;
  boost::asio::ssl::context ssl_;
  std::function<void()> cancelCurrent_;
};

}  // namespace gpua::cluster
