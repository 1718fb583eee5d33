#include "cluster/api_client.hpp"

#include <openssl/ssl.h>
#include <rapidjson/document.h>

#include <boost/asio/ip/address.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/ssl/host_name_verification.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>
#include <cstdint>
#include <limits>

#include "kube/json.hpp"
#include "kube/json_parse.hpp"

namespace gpua::cluster {

namespace json = kube::json;

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using asio::use_awaitable;
using Stream = beast::ssl_stream<beast::tcp_stream>;

namespace {

constexpr std::size_t kMaxListBody = 512u << 20;

std::string statusMessage(std::string_view body) {
  rapidjson::Document d;
  if (!kube::parseJson(body, d).ok()) return std::string(body.substr(0, 200));
  return std::string(json::string(json::member(d, "message")));
}

// "/api/v1/pods?watch=1..." -> "pods"
std::string resourceOf(std::string_view target) {
  auto path = target.substr(0, target.find('?'));
  return std::string(path.substr(path.rfind('/') + 1));
}

void loadCredentials(asio::ssl::context& ssl, const ApiConfig& c) {
  SSL_CTX_set_min_proto_version(ssl.native_handle(), TLS1_2_VERSION);
  try {
    if (!c.caPem.empty())
      ssl.add_certificate_authority(asio::buffer(c.caPem));
    else
      ssl.set_default_verify_paths();
  } catch (const boost::system::system_error& e) {
    throw ClusterConfigError("CA certificate of " + c.origin + " is not valid PEM: " + e.what());
  }
  ssl.set_verify_mode(c.insecureSkipVerify ? asio::ssl::verify_none : asio::ssl::verify_peer);
  if (c.clientCertPem.empty()) return;
  try {
    ssl.use_certificate_chain(asio::buffer(c.clientCertPem));
    ssl.use_private_key(asio::buffer(c.clientKeyPem), asio::ssl::context::pem);
  } catch (const boost::system::system_error& e) {
    throw ClusterConfigError("client certificate or key of " + c.origin +
                             " is invalid: " + e.what());
  }
}

http::request<http::empty_body> makeRequest(const ApiConfig& c, const std::string& target) {
  http::request<http::empty_body> req{http::verb::get, target, 11};
  req.set(http::field::host, c.host);
  req.set(http::field::accept, "application/json");
  req.set(http::field::user_agent, "gpu-admission");
  // Re-read on every request: projected service account tokens rotate (about hourly).
  if (auto token = currentToken(c); !token.empty())
    req.set(http::field::authorization, "Bearer " + token);
  return req;
}

asio::awaitable<void> connect(Stream& stream, const ApiConfig& c,
                              std::chrono::milliseconds timeout) {
  auto executor = co_await asio::this_coro::executor;
  asio::ip::tcp::resolver resolver(executor);
  beast::get_lowest_layer(stream).expires_after(timeout);
  try {
    auto endpoints = co_await resolver.async_resolve(c.host, c.port, use_awaitable);
    co_await beast::get_lowest_layer(stream).async_connect(endpoints, use_awaitable);
  } catch (const boost::system::system_error& e) {
    throw boost::system::system_error(e.code(),
                                      "cannot connect to the Kubernetes API at " + c.url());
  }
  boost::system::error_code ec;
  asio::ip::make_address(c.host, ec);
  if (ec) SSL_set_tlsext_host_name(stream.native_handle(), c.host.c_str());  // SNI: names only
  if (!c.insecureSkipVerify) stream.set_verify_callback(asio::ssl::host_name_verification(c.host));
  try {
    co_await stream.async_handshake(asio::ssl::stream_base::client, use_awaitable);
  } catch (const boost::system::system_error& e) {
    // A verification failure is a configuration problem: say where the CA came from.
    const bool verify = e.code().message().find("certificate verify failed") != std::string::npos;
    throw boost::system::system_error(
        e.code(), "TLS handshake with " + c.url() + " failed" +
                      (verify ? " (check the CA and server name of " + c.origin + ")" : ""));
  }
}

void closeQuietly(Stream& stream) {
  boost::system::error_code ignored;
  beast::get_lowest_layer(stream).socket().close(ignored);
}

}  // namespace

std::string describeHttpError(int status, std::string_view method, std::string_view target,
                              std::string_view apiMessage, const ApiConfig& config) {
  std::string what =
      std::string(method) + " " + config.url() + std::string(target.substr(0, target.find('?')));
  std::string detail = apiMessage.empty() ? "" : ": " + std::string(apiMessage);
  const auto resource = resourceOf(target);
  switch (status) {
    case 401:
      return "Kubernetes API rejected the credentials of " + config.origin +
             " (401 Unauthorized) for " + what + ": the token is missing, invalid or expired" +
             detail;
    case 403:
      return "Kubernetes API forbids " + what +
             " (403 Forbidden): grant the webhook's service "
             "account RBAC verbs [list, watch] on resource \"" +
             resource + "\" (apiGroups [\"\"]) in a ClusterRole" + detail;
    case 410:
      return "resourceVersion expired (410 Gone) for " + what + detail;
    default:
      return "Kubernetes API answered " + std::to_string(status) + " for " + what + detail;
  }
}

ApiClient::ApiClient(ApiConfig config)
    : config_(std::move(config)), ssl_(asio::ssl::context::tls_client) {
  loadCredentials(ssl_, config_);
}

asio::awaitable<std::string> ApiClient::get(std::string target, std::chrono::milliseconds timeout) {
  ApiResponse res = co_await send("GET", target, {}, timeout);
  if (res.status != 200)
    throw ApiError(res.status,
                   describeHttpError(res.status, "GET", target, res.message(), config_));
  co_return std::move(res.body);
}

std::string ApiResponse::message() const {
  return statusMessage(body);
}

asio::awaitable<ApiResponse> ApiClient::send(std::string method, std::string target,
                                             std::string body, std::chrono::milliseconds timeout) {
  Stream stream(co_await asio::this_coro::executor, ssl_);
  co_await connect(stream, config_, timeout);
  const auto head = makeRequest(config_, target);
  http::request<http::string_body> req{http::string_to_verb(method), target, 11};
  for (const auto& field : head) req.set(field.name_string(), field.value());
  if (!body.empty()) {
    req.set(http::field::content_type, "application/json");
    req.body() = std::move(body);
  }
  req.prepare_payload();
  beast::get_lowest_layer(stream).expires_after(timeout);
  co_await http::async_write(stream, req, use_awaitable);
  beast::flat_buffer buffer;
  http::response_parser<http::string_body> parser;
  parser.body_limit(kMaxListBody);
  co_await http::async_read(stream, buffer, parser, use_awaitable);
  closeQuietly(stream);
  co_return ApiResponse{static_cast<int>(parser.get().result_int()),
                        std::move(parser.get().body())};
}

asio::awaitable<void> ApiClient::watch(std::string target, std::chrono::milliseconds connectTimeout,
                                       std::chrono::milliseconds idleTimeout,
                                       std::function<void()> onOpen,
                                       std::function<void(std::string_view)> onLine) {
  Stream stream(co_await asio::this_coro::executor, ssl_);
  cancelCurrent_ = [&stream] { beast::get_lowest_layer(stream).cancel(); };
  struct Reset {
    std::function<void()>& f;
    ~Reset() { f = nullptr; }
  } reset{cancelCurrent_};

  co_await connect(stream, config_, connectTimeout);
  auto req = makeRequest(config_, target);
  beast::get_lowest_layer(stream).expires_after(connectTimeout);
  co_await http::async_write(stream, req, use_awaitable);
  beast::flat_buffer buffer;
  http::response_parser<http::string_body> parser;
  // A watch is an endless stream. Not boost::none: Boost 1.74 compares a Content-Length against
  // an empty optional as "greater" and fails every non-chunked (error) response.
  parser.body_limit(std::numeric_limits<std::uint64_t>::max());
  co_await http::async_read_header(stream, buffer, parser, use_awaitable);
  const int status = static_cast<int>(parser.get().result_int());
  if (status != 200) {
    // An error body is a small Status; read at most 1 MiB of it.
    boost::system::error_code ec;
    while (!ec && !parser.is_done() && parser.get().body().size() < (1u << 20))
      co_await http::async_read_some(stream, buffer, parser,
                                     asio::redirect_error(use_awaitable, ec));
    closeQuietly(stream);
    throw ApiError(status, describeHttpError(status, "GET", target,
                                             statusMessage(parser.get().body()), config_));
  }
  onOpen();
  auto& body = parser.get().body();
  while (!parser.is_done()) {
    beast::get_lowest_layer(stream).expires_after(idleTimeout);
    boost::system::error_code ec;
    co_await http::async_read_some(stream, buffer, parser, asio::redirect_error(use_awaitable, ec));
    if (ec)
      throw boost::system::system_error(
          ec, "watch " + target.substr(0, target.find('?')) + " from " + config_.url() + " broke");
    // The string body only ever appends at its end, so consumed lines can be dropped.
    std::size_t start = 0;
    for (auto nl = body.find('\n'); nl != std::string::npos; nl = body.find('\n', start)) {
      if (nl > start) onLine(std::string_view(body).substr(start, nl - start));
      start = nl + 1;
    }
    body.erase(0, start);
  }
  if (!body.empty()) onLine(body);  // a last event without its newline
  closeQuietly(stream);
}

void ApiClient::cancel() {
  if (cancelCurrent_) cancelCurrent_();
}

}  // namespace gpua::cluster
