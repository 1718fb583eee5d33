// An asynchronous HTTPS/1.1 server on Boost.Beast. It knows nothing about admission: every
// request goes to a Handler, so the same server runs the webhook or a constant "null" handler.
//
// Each connection is a session that owns its TLS stream and arms a deadline before every
// read and write (handshake and headers, body, response, idle keep-alive), so a slow or dead
// client costs a socket, never a worker thread. Limits and bad framing are answered here
// (413, 431, 400); everything else is the handler's business.
#pragma once

#include <boost/asio/io_context.hpp>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "server/http_types.hpp"
#include "server/serve_config.hpp"
#include "server/tls_context.hpp"

namespace gpua::server {

struct HttpServerOptions {
  std::chrono::milliseconds headerTimeout{10'000};  // TLS handshake + request line and headers
  std::chrono::milliseconds bodyTimeout{10'000};    // request body; also the response write
  std::chrono::milliseconds idleTimeout{120'000};   // waiting for the next request
  std::size_t maxBodyBytes = 8u << 20;              // Beast's default is 1 MB: too small
  std::size_t maxHeaderBytes = 64u << 10;
  // Connections beyond these are closed right after accept, before any TLS state exists.
  std::size_t maxConnections = 1024;
  std::size_t maxConnectionsPerSource = 0;  // per client IP; 0 = no per-source cap
  // Body bytes received (in 64 KiB steps) by all requests being read at once, whatever their
  // headers announce; a request whose next bytes do not fit gets a 503 and the connection ends.
  std::size_t maxBufferedBytes = 64u << 20;
  // With a TLS context that asks for client certificates without requiring them: requests to
  // other paths than these without a verified client certificate get a 403.
  bool requireClientCert = false;
  std::vector<std::string> clientCertExemptPaths;
  // While draining (beginDrain), a connection idle this long is closed; a busy one is closed
  // after its response ("Connection: close").
  std::chrono::milliseconds drainIdleTimeout{2'000};
  // Requests to these paths are handled on one side thread, not on an I/O thread: a handler
  // that may be slow (a /metrics scrape renders every series) never delays the others.
  std::vector<std::string> offloadPaths;
  // Threads that run handlers' network waits (HttpResponse::finishWaiting), each blocked at most
  // for the wait's own deadline. 0: they run on the I/O thread (handlers that never wait).
  unsigned waitingThreads = 0;
};

// Observers, called on I/O threads; each may be empty.
struct ServerEvents {
  // A request the server itself rejected or abandoned: "body-too-large", "header-too-large",
  // "malformed-http", "header-timeout", "body-timeout", "tls-handshake".
  std::function<void(std::string_view kind)> badRequest;
  // The number of open connections changed.
  std::function<void(int64_t open)> connections;
  // A handler threw; the client got a 500.
  std::function<void(const HttpRequest&, std::string_view what)> handlerError;
  // A connection or request refused to protect memory: "max-connections",
  // "max-connections-per-source", "buffer-budget".
  std::function<void(std::string_view reason)> overload;
  // accept() failed (EMFILE...); the next accept waits `backoff`.
  std::function<void(std::string_view error, std::chrono::milliseconds backoff)> acceptError;
};

// Runs the io_context until it is stopped or runs out of work. A completion handler that throws
// ends only its own connection: the unwinding destroys the handler and with it the session's last
// reference, which closes the socket; `onException` reports it and run() goes on with every
// other connection. Beast throws from inside its own handlers (std::length_error for a field
// longer than 64 KiB), where no handler of ours could catch it.
void runCatching(boost::asio::io_context& ioc,
                 const std::function<void(std::string_view what)>& onException);

class HttpServer {
 public:
  HttpServer(boost::asio::io_context& ioc, std::shared_ptr<TlsContextStore> tls, Handler handler,
             HttpServerOptions options, ServerEvents events = {});
  ~HttpServer();
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  // Binds and listens. Returns an empty string on success, else one line naming the address
  // and the problem ("cannot listen on 127.0.0.1:8443: Address already in use").
  std::string listen(const ListenAddress& address);
  uint16_t port() const;  // the bound port (useful with port 0)

  void start();  // starts accepting (call after listen, before running the io_context)

  // Start of a rolling shutdown, while the listener stays open: every response says
  // "Connection: close" and connections idle for drainIdleTimeout are closed, so clients move
  // to other replicas between requests, never in the middle of one. Safe from any thread.
  void beginDrain();

  // Graceful stop: close the listener, close idle keep-alive connections and connections that
  // have not begun their TLS handshake, let a request in flight finish and answer it with
  // "Connection: close". Safe from any thread.
  void stop();

  int64_t openConnections() const;

 private:
  struct State;
  std::shared_ptr<State> state_;
};

}  // namespace gpua::server
