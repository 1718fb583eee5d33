// The HTTPS server in-process behind a router of test handlers: keep-alive, limits, timeouts,
// bad framing, TLS options, graceful stop. No admission code is involved.
#include "server/http_server.hpp"

#include <gtest/gtest.h>

#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>

#include <atomic>
#include <deque>
#include <future>
#include <mutex>
#include <stdexcept>
#include <thread>
#include <utility>
#include <vector>

#include "server/router.hpp"
#include "support/temp_dir.hpp"
#include "support/tls_test_client.hpp"

namespace gpua::server {
namespace {

using gpua::testing::ClientOptions;
using gpua::testing::TempDir;
using gpua::testing::TlsTestClient;
using namespace std::chrono_literals;

class HttpServerTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    certs_ = new TempDir();
    gpua::testing::generateDevCerts(GPUA_GEN_CERTS, certs_->path().string());
  }
  static void TearDownTestSuite() { delete certs_; }

  void start(std::string clientCa = {}) {
    auto tls = loadTlsContext({certs_->file("server.crt"), certs_->file("server.key"), clientCa});
    ASSERT_TRUE(tls.context) << tls.error;
    const auto echo = [](const HttpRequest& r) {
      HttpResponse res;
      res.contentType = "text/plain";
      res.body = r.body;
      return res;
    };
    router_.add("POST", "/echo", echo);
    // Echoes into the connection's spare buffer, as the webhook's handler answers: the spare
    // must be empty, and holds the last response's capacity when that one was small.
    router_.add("POST", "/spare-echo", [](const HttpRequest& r) {
      HttpResponse res;
      res.contentType = "text/plain";
      res.headers.emplace_back("X-Spare", r.spareBody.empty()
                                              ? std::to_string(r.spareBody.capacity())
                                              : std::string("not-empty"));
      res.body = std::move(r.spareBody);
      res.body.append(r.body);
      return res;
    });
    router_.add("GET", "/healthz",
                [](const HttpRequest&) { return HttpResponse::text(200, "ok"); });
    router_.add("POST", "/open-echo", echo);  // exempt from the client certificate
    router_.add("POST", "/slow", [](const HttpRequest&) {
      std::this_thread::sleep_for(800ms);
      return HttpResponse::text(200, "slow done");
    });
    router_.add("GET", "/boom",
                [](const HttpRequest&) -> HttpResponse { throw std::runtime_error("boom"); });
    ServerEvents events;
    events.badRequest = [this](std::string_view kind) {
      std::lock_guard lock(mutex_);
      bad_.emplace_back(kind);
    };
    events.handlerError = [this](const HttpRequest&, std::string_view) { ++handlerErrors_; };
    events.overload = [this](std::string_view reason) {
      std::lock_guard lock(mutex_);
      overload_.emplace_back(reason);
    };
    HttpServerOptions options = options_;
    if (!clientCa.empty()) {
      options.requireClientCert = true;
      options.clientCertExemptPaths = {"/healthz", "/open-echo"};
    }
    server_ = std::make_unique<HttpServer>(
        ioc_, std::make_shared<TlsContextStore>(tls.context),
        [this](const HttpRequest& r) { return router_.route(r); }, options, events);
    ASSERT_EQ(server_->listen({"127.0.0.1", 0}), "");
    server_->start();
    for (int i = 0; i < ioThreads_; ++i) threads_.emplace_back([this] { ioc_.run(); });
  }

  void TearDown() override {
    if (server_) server_->stop();
    work_.reset();
    for (auto& t : threads_) t.join();
  }

  TlsTestClient client(ClientOptions extra = {}) {
    extra.caFile = certs_->file("ca.crt");
    return TlsTestClient(server_->port(), extra);
  }

  std::vector<std::string> badKinds() {
    std::lock_guard lock(mutex_);
    return bad_;
  }

  // The stream's timer closes the socket before the session's handler records why, so the
  // client can see the close first: give the event a moment to land.
  std::vector<std::string> badKindsSoon() {
    for (int i = 0; i < 100 && badKinds().empty(); ++i) std::this_thread::sleep_for(10ms);
    return badKinds();
  }

  static TempDir* certs_;
  boost::asio::io_context ioc_;
  std::optional<boost::asio::executor_work_guard<boost::asio::io_context::executor_type>> work_{
      ioc_.get_executor()};
  Router router_;
  HttpServerOptions options_ = [] {
    HttpServerOptions o;
    // Generous enough for ASan builds on a loaded machine, short enough to keep tests quick.
    o.headerTimeout = 1000ms;
    o.bodyTimeout = 1000ms;
    o.idleTimeout = 2500ms;
    return o;
  }();
  std::vector<std::string> overload_;
  std::vector<std::string> overloads() {
    std::lock_guard lock(mutex_);
    return overload_;
  }
  std::unique_ptr<HttpServer> server_;
  int ioThreads_ = 2;
  std::vector<std::thread> threads_;
  std::mutex mutex_;
  std::vector<std::string> bad_;
  std::atomic<int> handlerErrors_{0};
};
TempDir* HttpServerTest::certs_ = nullptr;

TEST_F(HttpServerTest, KeepAliveServesManyRequestsOnOneConnectionOverHttp11Alpn) {
  start();
  auto c = client();
  EXPECT_EQ(c.negotiatedAlpn(), "http/1.1");
  for (int i = 0; i < 5; ++i) {
    auto res = c.request("POST", "/echo", "hello " + std::to_string(i), "text/plain");
    EXPECT_EQ(res.status, 200);
    EXPECT_EQ(res.body, "hello " + std::to_string(i));
    EXPECT_TRUE(res.keepAlive);
  }
  EXPECT_EQ(server_->openConnections(), 1);
}

// The session reuses its request object and hands a small body's buffer to the next request:
// nothing of one request may show in the next (a longer body before a shorter one, an empty
// body, a query before a plain path, a large body whose buffer is released).
TEST_F(HttpServerTest, NothingOfOneRequestShowsInTheNextOnTheSameConnection) {
  start();
  auto c = client();
  const std::vector<std::pair<std::string, std::string>> exchanges = {
      {"/echo?first=1", std::string(12000, 'a')}, {"/echo", "b"},  {"/echo?x", ""},
      {"/echo", std::string(200000, 'c')},        {"/echo", "dd"},
  };
  for (const auto& [target, body] : exchanges) {
    auto res = c.request("POST", target, body, "text/plain");
    EXPECT_EQ(res.status, 200) << target;
    EXPECT_EQ(res.body, body) << target << " after " << body.size() << " bytes";
    EXPECT_TRUE(res.keepAlive);
  }
  EXPECT_EQ(c.request("GET", "/healthz").body, "ok\n");
  EXPECT_EQ(c.request("POST", "/echo", "last", "").body, "last");
  EXPECT_EQ(server_->openConnections(), 1);
}

// The response's head and body go out in one write of two buffers: every body size arrives
// whole, around the 16 KiB where a TLS record and Beast's flat_stream coalescing end (a two-buffer
// std::array once lost every body over 16 KiB after the head).
TEST_F(HttpServerTest, ResponsesOfEverySizeArriveWhole) {
  start();
  auto c = client();
  for (std::size_t n : {0u, 1u, 16300u, 16384u, 16385u, 17000u, 65536u, 300000u}) {
    auto res = c.request("POST", "/echo", std::string(n, 'q'), "text/plain");
    EXPECT_EQ(res.status, 200) << n;
    EXPECT_EQ(res.body.size(), n);
    EXPECT_TRUE(res.keepAlive);
  }
}

// A handler may write its response into the connection's spare buffer (the last response's,
// kept when at most 8 KiB): every response arrives whole and alone, a small one's capacity comes
// back with the next request, a large one's is not kept.
TEST_F(HttpServerTest, TheSpareResponseBufferCarriesNothingAndKeepsOnlySmallCapacity) {
  start();
  auto c = client();
  std::size_t lastCapacity = 0;
  for (std::size_t n : {3000u, 10u, 9000u, 20000u, 50u, 5000u, 0u, 7u}) {
    auto res = c.request("POST", "/spare-echo", std::string(n, static_cast<char>('a' + n % 26)),
                         "text/plain");
    ASSERT_EQ(res.status, 200) << n;
    EXPECT_EQ(res.body, std::string(n, static_cast<char>('a' + n % 26))) << n;
    ASSERT_NE(res.headers["X-Spare"], "not-empty") << n;
    const std::size_t spare = std::stoul(res.headers["X-Spare"]);
    EXPECT_LE(spare, 8u << 10) << n;
    if (lastCapacity >= 16 && lastCapacity <= (8u << 10)) {
      EXPECT_GE(spare, lastCapacity) << n;
    }
    lastCapacity = n;
  }
}

TEST_F(HttpServerTest, NeverNegotiatesH2) {
  start();
  ClientOptions o;
  o.alpn = "h2";
  auto c = client(o);
  EXPECT_EQ(c.negotiatedAlpn(), "");
  EXPECT_EQ(c.request("GET", "/healthz").status, 200);
}

TEST_F(HttpServerTest, Tls12UsesAnEcdheAeadSuite) {
  start();
  ClientOptions o;
  o.tlsVersion = gpua::testing::ClientTlsVersion::Tls12Only;
  auto c = client(o);
  EXPECT_EQ(c.protocolVersion(), "TLSv1.2");
  EXPECT_EQ(c.request("GET", "/healthz").status, 200);
}

TEST_F(HttpServerTest, RoutingMissesAndHandlerErrorsGetStatusCodes) {
  start();
  auto c = client();
  EXPECT_EQ(c.request("GET", "/nope").status, 404);
  auto r = c.request("GET", "/echo");
  EXPECT_EQ(r.status, 405);
  EXPECT_EQ(r.headers["Allow"], "POST");
  EXPECT_EQ(c.request("GET", "/boom").status, 500);
  EXPECT_EQ(handlerErrors_.load(), 1);
  EXPECT_EQ(c.request("GET", "/healthz").status, 200);  // same connection still fine
}

TEST_F(HttpServerTest, AcceptsEightMiBAndRejectsMoreWith413) {
  start();
  auto c = client();
  const std::string eight(8u << 20, 'x');
  auto ok = c.request("POST", "/echo", eight, "text/plain");
  EXPECT_EQ(ok.status, 200);
  EXPECT_EQ(ok.body.size(), eight.size());

  auto big = client();
  auto res = big.request("POST", "/echo", std::string(9u << 20, 'x'), "text/plain");
  EXPECT_EQ(res.status, 413);
  EXPECT_NE(res.body.find("exceeds the limit of 8388608 bytes"), std::string::npos);
  EXPECT_FALSE(res.keepAlive);
  EXPECT_EQ(badKinds(), std::vector<std::string>{"body-too-large"});
  EXPECT_EQ(client().request("GET", "/healthz").status, 200);
}

TEST_F(HttpServerTest, MalformedHttpIs400) {
  start();
  auto c = client();
  c.writeRaw("POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n");
  auto res = c.read();
  EXPECT_EQ(res.status, 400);
  EXPECT_NE(res.body.find("malformed HTTP request"), std::string::npos);
  EXPECT_EQ(badKinds(), std::vector<std::string>{"malformed-http"});
}

// Header fields live in memory the connection reuses (1.5 KiB); more spill to the heap. Many
// fields, then few, then many again on one connection: every request is read whole.
TEST_F(HttpServerTest, HeadersBeyondTheConnectionsFieldMemoryAreReadWhole) {
  start();
  auto c = client();
  auto many = [](const std::string& body) {
    std::string r = "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Type: text/plain\r\n";
    for (int i = 0; i < 60; ++i)
      r += "X-Field-" + std::to_string(i) + ": " + std::string(80, 'v') + "\r\n";
    return r + "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body;
  };
  c.writeRaw(many("first"));
  auto first = c.read();
  EXPECT_EQ(first.status, 200);
  EXPECT_EQ(first.body, "first");
  EXPECT_EQ(c.request("POST", "/echo", "second", "text/plain").body, "second");
  c.writeRaw(many("third"));
  EXPECT_EQ(c.read().body, "third");
}

TEST_F(HttpServerTest, HugeHeadersAre431) {
  start();
  auto c = client();
  c.writeRaw("GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: " + std::string(70'000, 'a') + "\r\n\r\n");
  EXPECT_EQ(c.read().status, 431);
}

TEST_F(HttpServerTest, ExpectContinueIsHonoured) {
  start();
  auto c = client();
  c.writeRaw("POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nExpect: 100-continue\r\n\r\n");
  const auto interim = c.read();
  EXPECT_EQ(interim.status, 100);
  EXPECT_EQ(interim.version, 11);
  c.writeRaw("hello");
  auto res = c.read();
  EXPECT_EQ(res.status, 200);
  EXPECT_EQ(res.body, "hello");
}

// RFC 9110 10.1.1: a server MUST ignore a 100-continue expectation in an HTTP/1.0 request; every
// answer of this server is HTTP/1.1 (the fuzzer found an "HTTP/1.0 100 Continue").
TEST_F(HttpServerTest, ExpectContinueOfAnHttp10RequestIsIgnored) {
  start();
  auto c = client();
  c.writeRaw(
      "POST /echo HTTP/1.0\r\nHost: x\r\nContent-Length: 5\r\nExpect: 100-continue\r\n\r\nhello");
  auto res = c.read();
  EXPECT_EQ(res.status, 200);
  EXPECT_EQ(res.version, 11);
  EXPECT_EQ(res.body, "hello");
}

// What the read buffer already holds is parsed without a read (Session::parseBuffered): two
// requests in one write are two answers, in order, and a body split across writes is whole.
TEST_F(HttpServerTest, PipelinedRequestsInOneWriteAreAnsweredInOrder) {
  start();
  auto c = client();
  c.writeRaw(
      "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhello"
      "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nworld"
      "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n");
  EXPECT_EQ(c.read().body, "hello");
  EXPECT_EQ(c.read().body, "world");
  EXPECT_EQ(c.read().status, 200);
}

TEST_F(HttpServerTest, ABodySplitAcrossWritesIsReadWhole) {
  start();
  auto c = client();
  c.writeRaw("POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 11\r\n\r\nhello");
  std::this_thread::sleep_for(100ms);
  c.writeRaw(" wor");
  std::this_thread::sleep_for(100ms);
  c.writeRaw("ldPOST /echo HTTP/1.1\r\nHost: x\r\nContent-Le");
  std::this_thread::sleep_for(100ms);
  c.writeRaw("ngth: 2\r\n\r\nok");
  EXPECT_EQ(c.read().body, "hello world");
  EXPECT_EQ(c.read().body, "ok");
  EXPECT_TRUE(badKinds().empty());
}

// "close" in any Connection field ends the connection after the response (RFC 9112 9.6): the
// server read only the first Connection field and kept this one open.
TEST_F(HttpServerTest, CloseInASecondConnectionFieldClosesTheConnection) {
  start();
  auto c = client();
  c.writeRaw(
      "POST /echo HTTP/1.1\r\nHost: x\r\nConnection: keep-alive\r\nConnection: close\r\n"
      "Content-Length: 2\r\n\r\nok");
  const auto res = c.read();
  EXPECT_EQ(res.body, "ok");
  EXPECT_FALSE(res.keepAlive);
  EXPECT_TRUE(c.closedByPeer());
}

TEST_F(HttpServerTest, SlowHeaderTimesOutWithoutBlockingOthers) {
  start();
  auto slow = client();
  slow.writeRaw("POST /echo HTTP/1.1\r\nHost: x\r\n");  // and then nothing
  const auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < 3; ++i) EXPECT_EQ(client().request("GET", "/healthz").status, 200);
  EXPECT_LT(std::chrono::steady_clock::now() - t0, 900ms) << "others waited for the slow one";
  EXPECT_TRUE(slow.closedByPeer());
  EXPECT_LT(std::chrono::steady_clock::now() - t0, 3s);
  EXPECT_EQ(badKindsSoon(), std::vector<std::string>{"header-timeout"});
}

TEST_F(HttpServerTest, SlowBodyTimesOut) {
  start();
  auto slow = client();
  slow.writeRaw("POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\nabc");
  EXPECT_TRUE(slow.closedByPeer());
  EXPECT_EQ(badKindsSoon(), std::vector<std::string>{"body-timeout"});
}

TEST_F(HttpServerTest, IdleConnectionsOutliveTheHeaderTimeoutThenClose) {
  start();
  auto c = client();
  EXPECT_EQ(c.request("GET", "/healthz").status, 200);
  std::this_thread::sleep_for(1500ms);  // past the header timeout, under the idle timeout
  EXPECT_EQ(c.request("GET", "/healthz").status, 200);
  const auto t0 = std::chrono::steady_clock::now();
  EXPECT_TRUE(c.closedByPeer());
  EXPECT_GT(std::chrono::steady_clock::now() - t0, 2s);
  EXPECT_TRUE(badKinds().empty());  // an idle close is normal, not a bad request
}

// A stop reaches every live session right after an idle connection's deadline closed it: the
// session, its read's completion not yet run, was still marked idle, and cancelling the closed
// socket threw ("cancel: Bad file descriptor") out of the I/O thread and ended the process
// (about one run in eight of IdleConnectionsOutliveTheHeaderTimeoutThenClose, whose teardown
// stops the server as soon as the client sees the close). Servers of their own on the
// fixture's I/O threads, each stopped the moment its idle connection is closed.
TEST_F(HttpServerTest, AStopRightAfterAnIdleCloseEndsNothing) {
  start();
  auto tls = loadTlsContext({certs_->file("server.crt"), certs_->file("server.key"), ""});
  ASSERT_TRUE(tls.context) << tls.error;
  HttpServerOptions options = options_;
  options.idleTimeout = 60ms;
  for (int i = 0; i < 40; ++i) {
    HttpServer server(ioc_, std::make_shared<TlsContextStore>(tls.context),
                      [this](const HttpRequest& r) { return router_.route(r); }, options, {});
    ASSERT_EQ(server.listen({"127.0.0.1", 0}), "");
    server.start();
    ClientOptions o;
    o.caFile = certs_->file("ca.crt");
    TlsTestClient c(server.port(), o);
    EXPECT_EQ(c.request("GET", "/healthz").status, 200);
    EXPECT_TRUE(c.closedByPeer());
    server.stop();
    for (int k = 0; k < 200 && server.openConnections() > 0; ++k) std::this_thread::sleep_for(5ms);
  }
}

// The connection's deadline is one lazy timer (a later deadline leaves its wait armed): after an
// idle spell has armed it for the far idle deadline, the next request's header timeout must
// re-arm it earlier, not wait out the idle one.
TEST_F(HttpServerTest, AHeaderAfterAnIdleSpellStillTimesOutAtTheHeaderTimeout) {
  options_.idleTimeout = 6000ms;
  start();
  auto c = client();
  EXPECT_EQ(c.request("GET", "/healthz").status, 200);
  std::this_thread::sleep_for(1300ms);  // the wait armed at the last write fired and re-armed
  c.writeRaw("POST /echo HTTP/1.1\r\nHost: x\r\n");  // and then nothing
  const auto t0 = std::chrono::steady_clock::now();
  EXPECT_TRUE(c.closedByPeer());
  EXPECT_LT(std::chrono::steady_clock::now() - t0, 3s) << "closed at the idle deadline";
  EXPECT_EQ(badKindsSoon(), std::vector<std::string>{"header-timeout"});
}

TEST_F(HttpServerTest, StopFinishesInFlightRequestsAndClosesIdleOnes) {
  start();
  auto idle = client();
  EXPECT_EQ(idle.request("GET", "/healthz").status, 200);
  auto busy = client();
  busy.writeRaw("POST /slow HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n");
  std::this_thread::sleep_for(300ms);  // the handler is now running
  server_->stop();
  auto res = busy.read();
  EXPECT_EQ(res.status, 200);
  EXPECT_EQ(res.body, "slow done\n");
  EXPECT_FALSE(res.keepAlive);
  EXPECT_TRUE(idle.closedByPeer());
  EXPECT_THROW(client(), boost::system::system_error);  // no longer accepting
}

// With --client-ca, kubelet probes and Prometheus (no client certificate)
// still reach the exempt paths; everything else needs a verified client certificate.
TEST_F(HttpServerTest, ClientCaRequiresAClientCertificateExceptOnExemptPaths) {
  // A client certificate signed by the dev CA, for clientAuth.
  const std::string d = certs_->path().string();
  const std::string cmd =
      "cd '" + d +
      "' && openssl ecparam -name prime256v1 -genkey -noout -out client.key 2>/dev/null && "
      "openssl req -new -key client.key -subj /CN=kube-apiserver -out client.csr 2>/dev/null && "
      "printf 'extendedKeyUsage=clientAuth\\n' > client.ext && "
      "openssl x509 -req -in client.csr -CA ca.crt -CAkey ca.key -set_serial 7 -days 1 "
      "-extfile client.ext -out client.crt 2>/dev/null";
  ASSERT_EQ(std::system(cmd.c_str()), 0);
  start(certs_->file("ca.crt"));

  auto anonymous = client();
  EXPECT_EQ(anonymous.request("GET", "/healthz").status, 200);
  const auto refused = anonymous.request("POST", "/echo", "hi");
  EXPECT_EQ(refused.status, 403) << refused.body;
  EXPECT_NE(refused.body.find("client certificate"), std::string::npos) << refused.body;
  EXPECT_EQ(badKindsSoon(), std::vector<std::string>{"client-cert-required"});
  // The refused request's body is not carried into the next one on the connection.
  EXPECT_EQ(anonymous.request("POST", "/open-echo", "next", "text/plain").body, "next");

  ClientOptions o;
  o.clientCert = certs_->file("client.crt");
  o.clientKey = certs_->file("client.key");
  auto trusted = client(o);
  EXPECT_EQ(trusted.request("GET", "/healthz").status, 200);
  EXPECT_EQ(trusted.request("POST", "/echo", "hi").body, "hi");
}

// Connections beyond the limits are closed before any TLS state exists, so a flood costs little.
TEST_F(HttpServerTest, ConnectionsBeyondTheLimitsAreRefused) {
  options_.maxConnections = 3;
  options_.maxConnectionsPerSource = 2;
  start();
  auto a = client();
  std::optional<TlsTestClient> b;
  ClientOptions o;
  o.caFile = certs_->file("ca.crt");
  b.emplace(server_->port(), o);
  EXPECT_EQ(a.request("GET", "/healthz").status, 200);
  EXPECT_EQ(b->request("GET", "/healthz").status, 200);
  EXPECT_ANY_THROW({
    auto c = client();
    c.request("GET", "/healthz");
  }) << "2 per source";
  for (int i = 0; i < 100 && overloads().empty(); ++i) std::this_thread::sleep_for(10ms);
  EXPECT_EQ(overloads(), std::vector<std::string>{"max-connections-per-source"});
  b.reset();
  // The slot comes back once the connection has closed.
  bool reopened = false;
  for (int i = 0; i < 100 && !reopened; ++i) {
    try {
      reopened = client().request("GET", "/healthz").status == 200;
    } catch (const std::exception&) {
      std::this_thread::sleep_for(10ms);
    }
  }
  EXPECT_TRUE(reopened);
}

// A scrape rendering 200,000 series held an I/O thread: admission p99 went from 0.44 to 2.1 ms
// while Prometheus scraped. With one I/O thread, a request is answered while an offloaded
// handler is still running (without offloading it would wait the handler's 10 s out).
TEST_F(HttpServerTest, AnOffloadedHandlerNeverHoldsAnIoThread) {
  ioThreads_ = 1;
  options_.offloadPaths = {"/render"};
  std::promise<void> started, othersServed;
  router_.add(
      "GET", "/render", [&started, served = othersServed.get_future().share()](const HttpRequest&) {
        started.set_value();
        const bool ok = served.wait_for(10s) == std::future_status::ready;
        return HttpResponse::text(200, ok ? "others were served meanwhile" : "held the I/O thread");
      });
  start();
  std::string rendered;
  std::thread scrape([&] { rendered = client().request("GET", "/render").body; });
  ASSERT_EQ(started.get_future().wait_for(10s), std::future_status::ready);
  EXPECT_EQ(client().request("GET", "/healthz").status, 200);
  othersServed.set_value();
  scrape.join();
  EXPECT_EQ(rendered, "others were served meanwhile\n");
}

// A handler whose answer waits on another service (a quota reservation's apiserver round trips)
// returns the wait as finishWaiting: with one I/O thread, a new connection's handshake and its
// request are served while the wait goes on; a wait that throws answers 500. Without waiting
// threads, the wait runs in place and the answer is the same.
TEST_F(HttpServerTest, AWaitingAnswerNeverHoldsAnIoThread) {
  ioThreads_ = 1;
  options_.waitingThreads = 2;
  std::promise<void> waiting, othersServed;
  router_.add("POST", "/reserve",
              [&waiting, served = othersServed.get_future().share()](const HttpRequest&) {
                HttpResponse first = HttpResponse::text(200, "not sent");
                first.finishWaiting = [&waiting, served](const HttpRequest& r) {
                  waiting.set_value();
                  const bool ok = served.wait_for(10s) == std::future_status::ready;
                  return HttpResponse::text(
                      200,
                      (ok ? "others were served meanwhile: " : "held the I/O thread: ") + r.body);
                };
                return first;
              });
  router_.add("POST", "/reserve-fails", [](const HttpRequest&) {
    HttpResponse first;
    first.finishWaiting = [](const HttpRequest&) -> HttpResponse {
      throw std::runtime_error("apiserver gone");
    };
    return first;
  });
  start();
  gpua::testing::ClientResponse reserved;
  std::thread governed([&] { reserved = client().request("POST", "/reserve", "pod-a"); });
  ASSERT_EQ(waiting.get_future().wait_for(10s), std::future_status::ready);
  EXPECT_EQ(client().request("GET", "/healthz").status, 200);
  othersServed.set_value();
  governed.join();
  EXPECT_EQ(reserved.status, 200);
  EXPECT_EQ(reserved.body, "others were served meanwhile: pod-a\n");
  auto kept = client();
  EXPECT_EQ(kept.request("POST", "/reserve-fails", "x").status, 500);
  EXPECT_EQ(kept.request("POST", "/echo", "still open").body, "still open")
      << "the connection goes on after a failed wait";
  EXPECT_EQ(handlerErrors_.load(), 1);
}

// What a wait uses (the webhook service, its reserver) is destroyed after the server: no wait
// may run past the server's destructor. It returned at once, leaving a reservation's wait
// running on a side thread into a destroyed service.
TEST_F(HttpServerTest, NoWaitOutlivesTheServer) {
  options_.waitingThreads = 1;
  std::promise<void> waiting;
  std::atomic<bool> waitEnded{false};
  router_.add("POST", "/reserve", [&](const HttpRequest&) {
    HttpResponse first;
    first.finishWaiting = [&](const HttpRequest&) {
      waiting.set_value();
      std::this_thread::sleep_for(300ms);  // an apiserver round trip
      waitEnded = true;
      return HttpResponse::text(200, "reserved");
    };
    return first;
  });
  start();
  std::string answer;
  std::thread governed([&] { answer = client().request("POST", "/reserve", "pod").body; });
  ASSERT_EQ(waiting.get_future().wait_for(10s), std::future_status::ready);
  server_->stop();  // as `serve` ends: stop, drain, then destroy
  server_.reset();
  EXPECT_TRUE(waitEnded) << "the server's destructor returned while a wait still ran";
  governed.join();  // the wait's answer still reaches the client: the I/O threads run
  EXPECT_EQ(answer, "reserved\n");
}

TEST_F(HttpServerTest, WithoutWaitingThreadsAWaitRunsInPlace) {
  router_.add("POST", "/reserve", [](const HttpRequest&) {
    HttpResponse first = HttpResponse::text(200, "not sent");
    first.finishWaiting = [](const HttpRequest& r) {
      HttpResponse second;
      second.finishWaiting = [](const HttpRequest& q) {
        return HttpResponse::text(201, "reserved " + q.body);
      };
      return r.body == "twice" ? second : HttpResponse::text(200, "once");
    };
    return first;
  });
  start();
  auto c = client();
  EXPECT_EQ(c.request("POST", "/reserve", "once").body, "once\n");
  const auto twice = c.request("POST", "/reserve", "twice");
  EXPECT_EQ(twice.status, 201);
  EXPECT_EQ(twice.body, "reserved twice\n");
}

// Bodies being read share one budget, charged for the bytes received: announcing a body
// reserves nothing (8 stalled uploads announcing 8 MiB each held the whole 64 MiB), a request
// whose bytes do not fit gets a 503, and the budget comes back when requests finish.
TEST_F(HttpServerTest, RequestBodiesShareABufferBudgetOfReceivedBytes) {
  options_.maxBodyBytes = 1u << 20;
  options_.maxBufferedBytes = 1536u << 10;
  start();
  std::deque<TlsTestClient> announcers;  // a deque: clients do not move
  ClientOptions withCa;
  withCa.caFile = certs_->file("ca.crt");
  for (int i = 0; i < 4; ++i) {
    announcers.emplace_back(server_->port(), withCa);
    announcers.back().writeRaw("POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 1048576\r\n\r\n");
  }
  EXPECT_EQ(client().request("POST", "/echo", std::string(1048576, 'y')).status, 200)
      << "announced bodies reserve nothing";
  auto stalled = client();
  stalled.writeRaw("POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 1048576\r\n\r\n" +
                   std::string(1048575, 'x'));
  std::this_thread::sleep_for(300ms);  // its megabyte is received and charged
  auto second = client();
  try {
    second.writeRaw("POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 1048576\r\n\r\n" +
                    std::string(1048576, 'z'));
  } catch (const std::exception&) {
    // refused while still writing
  }
  const auto busy = second.read();
  EXPECT_EQ(busy.status, 503) << busy.body;
  EXPECT_EQ(busy.headers.count("retry-after") + busy.headers.count("Retry-After"), 1u);
  EXPECT_EQ(overloads(), std::vector<std::string>{"buffer-budget"});
  EXPECT_EQ(client().request("POST", "/echo", "small").body, "small") << "small ones still fit";
  stalled.writeRaw("x");
  EXPECT_EQ(stalled.read().status, 200);
  EXPECT_EQ(client().request("POST", "/echo", std::string(1048576, 'y')).status, 200)
      << "the budget is back";
}

// While draining, responses close the connection and an idle keep-alive
// connection is closed between requests; stop() does not wait for a silent connection.
TEST_F(HttpServerTest, DrainClosesBetweenRequestsAndStopDropsSilentConnections) {
  options_.drainIdleTimeout = 1000ms;
  start();
  auto busy = client();
  auto idle = client();
  EXPECT_TRUE(busy.request("GET", "/healthz").keepAlive);
  EXPECT_EQ(idle.request("GET", "/healthz").status, 200);
  server_->beginDrain();
  const auto res = busy.request("GET", "/healthz");
  EXPECT_EQ(res.status, 200);
  EXPECT_FALSE(res.keepAlive) << "Connection: close while draining";
  EXPECT_TRUE(idle.closedByPeer());
  EXPECT_EQ(client().request("GET", "/healthz").status, 200) << "still accepting";

  // A TCP connection that never sends its ClientHello.
  boost::asio::io_context io;
  boost::asio::ip::tcp::socket silent(io);
  silent.connect({boost::asio::ip::make_address("127.0.0.1"), server_->port()});
  for (int i = 0; i < 100 && server_->openConnections() < 1; ++i) std::this_thread::sleep_for(10ms);
  const auto stopped = std::chrono::steady_clock::now();
  server_->stop();
  for (int i = 0; i < 300 && server_->openConnections() > 0; ++i) std::this_thread::sleep_for(10ms);
  EXPECT_EQ(server_->openConnections(), 0);
  EXPECT_LT(std::chrono::steady_clock::now() - stopped, 900ms) << "not the header timeout";
}

}  // namespace
}  // namespace gpua::server

namespace gpua::server {
namespace {

// A handler that throws ends only itself: runCatching reports the exception and keeps running
// the io_context, so the other connections' handlers still run.
TEST(RunCatching, AThrowingHandlerIsReportedAndTheOthersStillRun) {
  boost::asio::io_context ioc;
  std::vector<std::string> reported;
  bool otherRan = false;
  boost::asio::post(ioc, [] { throw std::length_error("field value too large"); });
  boost::asio::post(ioc, [&] { otherRan = true; });
  runCatching(ioc, [&](std::string_view what) { reported.emplace_back(what); });
  EXPECT_TRUE(otherRan);
  ASSERT_EQ(reported.size(), 1u);
  EXPECT_EQ(reported[0], "field value too large");
}

}  // namespace
}  // namespace gpua::server
