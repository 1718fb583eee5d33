#include "server/http_server.hpp"

#include <openssl/ssl.h>

#include <boost/asio/dispatch.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/strand.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>

#include <atomic>
#include <mutex>
#include <optional>
#include <unordered_map>

#include "text/ascii.hpp"

namespace gpua::server {

namespace net = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = net::ip::tcp;
using error_code = boost::system::error_code;

namespace {

class Session;

// Live sessions, so stop() can reach them, and the open-connection gauge.
struct Registry {
  std::mutex mutex;
  std::unordered_map<Session*, std::weak_ptr<Session>> sessions;
  std::atomic<int64_t> open{0};
  std::atomic<bool> stopping{false};
};

// Shared, immutable-after-start settings of every session.
struct SessionEnv {
  Handler handler;
  HttpServerOptions options;
  ServerEvents events;
  std::shared_ptr<Registry> registry;

  void bad(std::string_view kind) const {
    if (events.badRequest) events.badRequest(kind);
  }
  void connectionsChanged() const {
    if (events.connections) events.connections(registry->open.load());
  }
};

// How long a response to a rejected upload may keep reading the rest of the body, so the
// client sees our 413 instead of a reset.
constexpr std::chrono::seconds kDrainTime{2};
constexpr std::size_t kDrainMaxBytes = 64u << 20;

using text::equalsIgnoreCase;

class Session : public std::enable_shared_from_this<Session> {
 public:
  Session(tcp::socket socket, std::shared_ptr<ssl::context> ctx,
          std::shared_ptr<const SessionEnv> env)
      : ctx_(std::move(ctx)), stream_(std::move(socket), *ctx_), env_(std::move(env)) {}

  ~Session() {
    {
      std::lock_guard lock(env_->registry->mutex);
      env_->registry->sessions.erase(this);
    }
    env_->registry->open.fetch_sub(1);
    env_->connectionsChanged();
  }

  void start() {
    {
      std::lock_guard lock(env_->registry->mutex);
      env_->registry->sessions.emplace(this, weak_from_this());
    }
    env_->registry->open.fetch_add(1);
    env_->connectionsChanged();
    net::dispatch(stream_.get_executor(), [self = shared_from_this()] { self->handshake(); });
  }

  // From any thread: finish what is in flight, then close.
  void stop() {
    net::post(stream_.get_executor(), [self = shared_from_this()] {
      self->stopping_ = true;
      if (self->idle_) beast::get_lowest_layer(self->stream_).cancel();
    });
  }

 private:
  beast::tcp_stream& lowest() { return beast::get_lowest_layer(stream_); }
  bool stopping() const { return stopping_ || env_->registry->stopping; }

  void handshake() {
    expiresAfter(env_->options.headerTimeout);
    stream_.async_handshake(ssl::stream_base::server, [self = shared_from_this()](error_code ec) {
      if (ec) {
        self->env_->bad("tls-handshake");
        return self->closeNow();
      }
      self->awaitRequest();
    });
  }

  // Waits for the first byte of the next request under the idle timeout; the header timeout
  // starts only once the client has begun a request.
  void awaitRequest() {
    if (stopping()) return gracefulClose();
    if (buffer_.size() > 0) return readHeader();
    idle_ = true;
    expiresAfter(env_->options.idleTimeout);
    stream_.async_read_some(buffer_.prepare(16 * 1024),
                            [self = shared_from_this()](error_code ec, std::size_t n) {
                              self->idle_ = false;
                              if (ec == net::error::operation_aborted && self->stopping())
                                return self->gracefulClose();
                              if (ec) return self->closeNow();  // idle timeout or client gone
                              self->buffer_.commit(n);
                              self->readHeader();
                            });
  }

  void readHeader() {
    received_ = std::chrono::steady_clock::now();
    parser_.emplace();
    parser_->body_limit(env_->options.maxBodyBytes);
    parser_->header_limit(static_cast<std::uint32_t>(env_->options.maxHeaderBytes));
    expiresAfter(env_->options.headerTimeout);
    http::async_read_header(stream_, buffer_, *parser_,
                            [self = shared_from_this()](error_code ec, std::size_t) {
                              if (ec) return self->readFailed(ec, "header-timeout");
                              self->maybeContinue();
                            });
  }

  // Clients such as curl send "Expect: 100-continue" for large bodies and wait for it.
  void maybeContinue() {
    const auto expect = parser_->get()[http::field::expect];
    if (!equalsIgnoreCase(expect, "100-continue")) return readBody();
    continue_.emplace(http::status::continue_, parser_->get().version());
    expiresAfter(env_->options.bodyTimeout);
    http::async_write(stream_, *continue_, [self = shared_from_this()](error_code ec, std::size_t) {
      if (ec) return self->closeNow();
      self->readBody();
    });
  }

  void readBody() {
    expiresAfter(env_->options.bodyTimeout);
    http::async_read(stream_, buffer_, *parser_,
                     [self = shared_from_this()](error_code ec, std::size_t) {
                       if (ec) return self->readFailed(ec, "body-timeout");
                       self->handle();
                     });
  }

  // Arms the stream's deadline and remembers it: below TLS, an expired deadline can surface
  // as a TLS or EOF error rather than beast::error::timeout.
  void expiresAfter(std::chrono::steady_clock::duration d) {
    deadline_ = std::chrono::steady_clock::now() + d;
    lowest().expires_after(d);
  }
  bool timedOut(error_code ec) const {
    return ec == beast::error::timeout || std::chrono::steady_clock::now() >= deadline_;
  }

  void readFailed(error_code ec, std::string_view timeoutKind) {
    if (timedOut(ec)) {
      env_->bad(timeoutKind);
      return closeNow();
    }
    if (ec == http::error::body_limit) {
      env_->bad("body-too-large");
      return reject(413, "request body exceeds the limit of " +
                             std::to_string(env_->options.maxBodyBytes) + " bytes");
    }
    if (ec == http::error::header_limit) {
      env_->bad("header-too-large");
      return reject(431, "request headers exceed the limit of " +
                             std::to_string(env_->options.maxHeaderBytes) + " bytes");
    }
    if (ec.category() == make_error_code(http::error::end_of_stream).category() &&
        ec != http::error::end_of_stream && ec != http::error::partial_message) {
      env_->bad("malformed-http");
      return reject(400, "malformed HTTP request: " + ec.message());
    }
    closeNow();  // the client went away (eof, reset, truncated TLS)
  }

  void handle() {
    const auto& msg = parser_->get();
    HttpRequest req;
    req.method = std::string(msg.method_string());
    req.target = std::string(msg.target());
    req.path = pathOf(req.target);
    req.contentType = std::string(msg[http::field::content_type]);
    req.body = std::move(parser_->get().body());
    req.received = received_;
    const bool keepAlive = msg.keep_alive();
    HttpResponse res;
    try {
      res = env_->handler(req);
    } catch (const std::exception& e) {
      if (env_->events.handlerError) env_->events.handlerError(req, e.what());
      res = HttpResponse::text(500, "internal error", "internal-error");
    }
    write(std::move(res), keepAlive && !stopping(), false);
  }

  void reject(int status, std::string message) {
    write(HttpResponse::text(status, std::move(message)), false, true);
  }

  void write(HttpResponse r, bool keepAlive, bool drainAfter) {
    res_.emplace();
    res_->result(static_cast<unsigned>(r.status));
    res_->version(11);
    res_->set(http::field::content_type, r.contentType);
    for (const auto& [k, v] : r.headers) res_->set(k, v);
    res_->body() = std::move(r.body);  // no copy of a response that may be kilobytes
    res_->keep_alive(keepAlive);
    res_->prepare_payload();
    expiresAfter(env_->options.bodyTimeout);
    http::async_write(
        stream_, *res_,
        [self = shared_from_this(), keepAlive, drainAfter](error_code ec, std::size_t) {
          if (ec) return self->closeNow();
          if (drainAfter) return self->drain(0);
          if (!keepAlive) return self->gracefulClose();
          self->awaitRequest();
        });
  }

  // Reads and drops what the client is still sending, briefly, then closes: closing a socket
  // with unread data makes the kernel send a reset that can destroy our error response.
  void drain(std::size_t total) {
    if (total == 0) expiresAfter(kDrainTime);
    buffer_.consume(buffer_.size());
    stream_.async_read_some(buffer_.prepare(64 * 1024),
                            [self = shared_from_this(), total](error_code ec, std::size_t n) {
                              if (ec || total + n > kDrainMaxBytes) return self->closeNow();
                              self->drain(total + n);
                            });
  }

  // Sends our close_notify without waiting for the peer's: HTTP framing already told the
  // client the response is complete, and a client that never answers must not hold the
  // connection (and a shutdown drain) open.
  void gracefulClose() {
    SSL_set_shutdown(stream_.native_handle(), SSL_RECEIVED_SHUTDOWN);
    expiresAfter(std::chrono::seconds(2));
    stream_.async_shutdown([self = shared_from_this()](error_code) { self->closeNow(); });
  }

  void closeNow() {
    error_code ignored;
    lowest().socket().shutdown(tcp::socket::shutdown_both, ignored);
    lowest().close();
  }

  std::shared_ptr<ssl::context> ctx_;  // before stream_: the stream uses it until destroyed
  beast::ssl_stream<beast::tcp_stream> stream_;
  std::shared_ptr<const SessionEnv> env_;
  beast::flat_buffer buffer_;
  std::optional<http::request_parser<http::string_body>> parser_;
  std::optional<http::response<http::empty_body>> continue_;
  std::optional<http::response<http::string_body>> res_;
  std::chrono::steady_clock::time_point deadline_{};
  std::chrono::steady_clock::time_point received_{};
  bool idle_ = false;      // waiting for a request: stop() may close right away
  bool stopping_ = false;  // answer what is in flight, then close
};

}  // namespace

struct HttpServer::State : std::enable_shared_from_this<HttpServer::State> {
  net::io_context& ioc;
  std::shared_ptr<TlsContextStore> tls;
  std::shared_ptr<SessionEnv> env;
  tcp::acceptor acceptor;

  State(net::io_context& io, std::shared_ptr<TlsContextStore> t, std::shared_ptr<SessionEnv> e)
      : ioc(io), tls(std::move(t)), env(std::move(e)), acceptor(net::make_strand(io)) {}

  void accept() {
    acceptor.async_accept(
        net::make_strand(ioc), [self = shared_from_this()](error_code ec, tcp::socket socket) {
          if (!self->acceptor.is_open() || self->env->registry->stopping) return;
          if (!ec) {
            // Without TCP_NODELAY, Nagle holds a small TLS record (session tickets, a short
            // response) until the client's delayed ACK: ~40 ms stalls per new connection.
            error_code ignored;
            socket.set_option(tcp::no_delay(true), ignored);
            std::make_shared<Session>(std::move(socket), self->tls->current(), self->env)->start();
          }
          self->accept();  // transient errors (EMFILE...) must not stop us
        });
  }
};

HttpServer::HttpServer(net::io_context& ioc, std::shared_ptr<TlsContextStore> tls, Handler handler,
                       HttpServerOptions options, ServerEvents events) {
  auto env = std::make_shared<SessionEnv>();
  env->handler = std::move(handler);
  env->options = options;
  env->events = std::move(events);
  env->registry = std::make_shared<Registry>();
  state_ = std::make_shared<State>(ioc, std::move(tls), std::move(env));
}

HttpServer::~HttpServer() = default;

std::string HttpServer::listen(const ListenAddress& address) {
  const std::string where = address.host + ":" + std::to_string(address.port);
  error_code ec;
  tcp::resolver resolver(state_->ioc);
  auto results = resolver.resolve(address.host, std::to_string(address.port),
                                  tcp::resolver::passive | tcp::resolver::numeric_service, ec);
  if (ec || results.empty()) return "cannot listen on " + where + ": " + ec.message();
  const tcp::endpoint endpoint = results.begin()->endpoint();
  auto& a = state_->acceptor;
  if (a.open(endpoint.protocol(), ec); !ec) a.set_option(net::socket_base::reuse_address(true), ec);
  if (!ec) a.bind(endpoint, ec);
  if (!ec) a.listen(net::socket_base::max_listen_connections, ec);
  if (ec) {
    error_code ignored;
    a.close(ignored);
    return "cannot listen on " + where + ": " + ec.message();
  }
  return {};
}

uint16_t HttpServer::port() const {
  error_code ec;
  const auto ep = state_->acceptor.local_endpoint(ec);
  return ec ? 0 : ep.port();
}

void HttpServer::start() {
  net::dispatch(state_->acceptor.get_executor(), [s = state_] { s->accept(); });
}

void HttpServer::stop() {
  auto s = state_;
  if (s->env->registry->stopping.exchange(true)) return;
  net::post(s->acceptor.get_executor(), [s] {
    error_code ignored;
    s->acceptor.close(ignored);
  });
  std::vector<std::shared_ptr<Session>> live;
  {
    std::lock_guard lock(s->env->registry->mutex);
    for (auto& [_, weak] : s->env->registry->sessions)
      if (auto p = weak.lock()) live.push_back(std::move(p));
  }
  for (auto& session : live) session->stop();
}

int64_t HttpServer::openConnections() const {
  return state_->env->registry->open.load();
}

}  // namespace gpua::server
