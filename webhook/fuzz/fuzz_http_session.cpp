// The HTTP layer of the server, driven the way a client on the network drives it: the server
// (HttpServer with its sessions, limits, timeouts and the router) runs in-process on 127.0.0.1
// behind a real TLS handshake, and each input is the byte stream one client sends on a fresh
// connection after the handshake (request lines, headers, chunked bodies, trailers, several
// pipelined requests). The client then closes its side and reads what the server answers.
// Oracles:
//   - no crash and no sanitizer report in the server (ASan, UBSan);
//   - no request bytes end the server: an exception out of a completion handler is caught by
//     runCatching and counted, never the end of the I/O thread, and every connection is
//     answered or closed: after each input a /healthz on a new connection answers 200;
//   - every answer starts with an HTTP/1.1 status line.
// Small limits (8 KiB headers, 64 KiB bodies, 1 s timeouts) put the limit paths within reach.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <stdexcept>
#include <string>
#include <thread>

#include "server/http_server.hpp"
#include "server/router.hpp"
#include "server/tls_context.hpp"

namespace {

namespace fs = std::filesystem;
using namespace gpua::server;

[[noreturn]] void fail(const std::string& what) {
  std::fprintf(stderr, "http session oracle: %s\n", what.c_str());
  std::abort();
}

// A self-signed EC certificate for 127.0.0.1, written where loadTlsContext reads it.
TlsFiles makeCertificate(const fs::path& dir) {
  EVP_PKEY* key = EVP_EC_gen("P-256");
  X509* cert = X509_new();
  ASN1_INTEGER_set(X509_get_serialNumber(cert), 1);
  X509_gmtime_adj(X509_getm_notBefore(cert), -60);
  X509_gmtime_adj(X509_getm_notAfter(cert), 86400);
  X509_set_pubkey(cert, key);
  X509_NAME* name = X509_get_subject_name(cert);
  X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC,
                             reinterpret_cast<const unsigned char*>("fuzz"), -1, -1, 0);
  X509_set_issuer_name(cert, name);
  if (key == nullptr || X509_sign(cert, key, EVP_sha256()) == 0) fail("cannot make a certificate");
  fs::create_directories(dir);
  TlsFiles files{(dir / "tls.crt").string(), (dir / "tls.key").string(), ""};
  FILE* c = std::fopen(files.cert.c_str(), "w");
  FILE* k = std::fopen(files.key.c_str(), "w");
  if (c == nullptr || k == nullptr || PEM_write_X509(c, cert) == 0 ||
      PEM_write_PrivateKey(k, key, nullptr, nullptr, 0, nullptr, nullptr) == 0)
    fail("cannot write the certificate");
  std::fclose(c);
  std::fclose(k);
  X509_free(cert);
  EVP_PKEY_free(key);
  return files;
}

struct Server {
  boost::asio::io_context ioc{1};
  boost::asio::executor_work_guard<boost::asio::io_context::executor_type> work{ioc.get_executor()};
  std::unique_ptr<HttpServer> http;
  std::thread thread;
  std::atomic<int> exceptions{0};
  uint16_t port = 0;

  Server() {
    const auto dir = fs::temp_directory_path() / ("gpua-fuzz-http-" + std::to_string(getpid()));
    auto tls = loadTlsContext(makeCertificate(dir));
    if (!tls.context) fail("tls: " + tls.error);
    static Router router;
    router.add("POST", "/echo", [](const HttpRequest& r) {
      HttpResponse res;
      res.body = r.body;
      return res;
    });
    router.add("GET", "/healthz", [](const HttpRequest&) { return HttpResponse::text(200, "ok"); });
    router.add("POST", "/throw",
               [](const HttpRequest&) -> HttpResponse { throw std::runtime_error("handler"); });
    HttpServerOptions o;
    o.headerTimeout = std::chrono::milliseconds(1000);
    o.bodyTimeout = std::chrono::milliseconds(1000);
    o.idleTimeout = std::chrono::milliseconds(1000);
    o.maxHeaderBytes = 8u << 10;
    o.maxBodyBytes = 64u << 10;
    o.maxBufferedBytes = 256u << 10;
    o.offloadPaths = {"/healthz"};
    http = std::make_unique<HttpServer>(
        ioc, std::make_shared<TlsContextStore>(tls.context),
        [](const HttpRequest& r) { return router.route(r); }, o);
    if (const auto err = http->listen({"127.0.0.1", 0}); !err.empty()) fail(err);
    port = http->port();
    http->start();
    thread = std::thread([this] { runCatching(ioc, [this](std::string_view) { ++exceptions; }); });
  }
};

Server& server() {
  static Server* s = new Server();  // lives until the process ends, like the fuzzer's run
  return *s;
}

SSL_CTX* clientContext() {
  static SSL_CTX* ctx = [] {
    SSL_CTX* c = SSL_CTX_new(TLS_client_method());
    SSL_CTX_set_verify(c, SSL_VERIFY_NONE, nullptr);
    return c;
  }();
  return ctx;
}

// libFuzzer's timer signal interrupts blocking calls (EINTR, seen as SSL_ERROR_WANT_READ on a
// blocking socket): the client retries them, or the oracle would blame the server.
template <class Call>
int retryingSsl(SSL* ssl, Call call) {
  for (;;) {
    const int r = call();
    if (r > 0) return r;
    const int e = SSL_get_error(ssl, r);
    if ((e != SSL_ERROR_WANT_READ && e != SSL_ERROR_WANT_WRITE) || errno != EINTR) return r;
  }
}

bool connectRetrying(int fd, const sockaddr_in& addr) {
  if (::connect(fd, reinterpret_cast<const sockaddr*>(&addr), sizeof addr) == 0) return true;
  if (errno != EINTR) return false;
  // Interrupted: the connection completes in the background; wait for it and read the outcome.
  pollfd p{fd, POLLOUT, 0};
  while (::poll(&p, 1, 3000) < 0)
    if (errno != EINTR) return false;
  int error = 0;
  socklen_t len = sizeof error;
  return ::getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &len) == 0 && error == 0;
}

// One connection: handshake, send `bytes`, close the sending side, read until the server
// closes (or 3 s pass). Returns what the server sent; throws when the server cannot be reached.
std::string exchange(const std::string& bytes) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  timeval tv{3, 0};
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  ::setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(server().port);
  ::inet_pton(AF_INET, "127.0.0.1", &addr.sin_addr);
  if (!connectRetrying(fd, addr)) {
    ::close(fd);
    throw std::runtime_error("connect failed");
  }
  SSL* ssl = SSL_new(clientContext());
  SSL_set_fd(ssl, fd);
  std::string out;
  if (retryingSsl(ssl, [&] { return SSL_connect(ssl); }) == 1) {
    for (std::size_t at = 0; at < bytes.size();) {
      const int n = retryingSsl(ssl, [&] {
        return SSL_write(ssl, bytes.data() + at, static_cast<int>(bytes.size() - at));
      });
      if (n <= 0) break;  // the server closed on us: refused input
      at += static_cast<std::size_t>(n);
    }
    SSL_shutdown(ssl);  // our close_notify: the server sees the end of the stream
    char buf[16384];
    for (int n; (n = retryingSsl(ssl, [&] { return SSL_read(ssl, buf, sizeof buf); })) > 0;)
      out.append(buf, static_cast<std::size_t>(n));
  }
  SSL_free(ssl);
  ERR_clear_error();
  ::close(fd);
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string input(reinterpret_cast<const char*>(data), size);
  std::string answer;
  try {
    answer = exchange(input);
  } catch (const std::exception& e) {
    fail(std::string("server unreachable: ") + e.what());
  }
  if (!answer.empty() && answer.rfind("HTTP/1.1 ", 0) != 0)
    fail("an answer that is not HTTP/1.1: " + answer.substr(0, 64));
  // The server is still serving: a fresh connection gets its health answer.
  const std::string health = exchange("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n");
  if (health.rfind("HTTP/1.1 200", 0) != 0)
    fail("no /healthz answer after the input (got \"" + health.substr(0, 80) +
         "\", open connections: " + std::to_string(server().http->openConnections()) +
         ", handler exceptions: " + std::to_string(server().exceptions.load()) + ")");
  return 0;
}
