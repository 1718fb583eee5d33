#include "server/http_server.hpp"

#include <malloc.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>

#include <boost/asio/dispatch.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>
#include <boost/asio/thread_pool.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>

#include <algorithm>
#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <unordered_map>
#include <utility>

#include "server/handler_memory.hpp"
#include "server/request_reader.hpp"
#include "server/response_head.hpp"
#include "server/unproven_connections.hpp"
#include "text/ascii.hpp"

namespace gpua::server {

namespace net = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = net::ip::tcp;
using error_code = boost::system::error_code;

namespace {

// A connection's strand by its own type, not as net::any_io_executor: every asynchronous
// operation copies its stream's executor, and the type-erased one allocated for each copy of a
// strand (about 25 allocations and their reference counts per request).
using Strand = net::strand<net::io_context::executor_type>;
using Socket = tcp::socket::rebind_executor<Strand>::other;
// The connection's deadline timer, by the strand's type too (see Session::expiresAfter).
using DeadlineTimer =
    net::basic_waitable_timer<std::chrono::steady_clock,
                              net::wait_traits<std::chrono::steady_clock>, Strand>;

class Session;

// Live sessions, so stop() can reach them; the connection limits and the budget of request
// bytes being read. The mutex is taken when a connection opens or closes, never per request.
// Evictions in flight at most (see Registry::evicting).
constexpr int64_t kMaxPendingEvictions = 32;
// How long a connection that began its TLS handshake has to send a request header before it
// may be evicted at a cap: a prompt client always gets in.
constexpr std::chrono::seconds kTalkingGrace{1};

struct Registry {
  std::mutex mutex;
  std::unordered_map<Session*, std::weak_ptr<Session>> sessions;
  std::unordered_map<std::string, std::size_t> perSource;  // open connections by client IP
  std::atomic<int64_t> open{0};
  std::atomic<bool> stopping{false};
  std::atomic<bool> draining{false};
  std::atomic<std::size_t> buffered{0};
  // Peaks since memory was last handed back to the system (see State::trimAfterBurst).
  std::atomic<int64_t> openPeak{0};
  std::atomic<std::size_t> bufferedPeak{0};
  std::atomic<uint64_t> evictions{0};  // since the last housekeeping tick
  // Evictions asked for whose sessions have not closed yet: their slots still count in `open`,
  // and while many are pending a new connection is refused rather than let the count run away.
  std::atomic<int64_t> evicting{0};

  // At the caps, the oldest connections that never sent a request make room (see
  // unproven_connections.hpp).
  UnprovenConnections<Session> unproven;

  // Takes a connection slot, making room by evicting the oldest unproven connection (of the
  // same source at the per-source cap) into `evicted`; returns the reason when there is none.
  std::string_view admit(const std::string& source, const HttpServerOptions& o,
                         std::vector<std::shared_ptr<Session>>& evicted) {
    const auto time = std::chrono::steady_clock::now();
    std::lock_guard lock(mutex);
    const bool evictionsBacklogged = evicting.load() >= kMaxPendingEvictions;
    if (open.load() - evicting.load() >= static_cast<int64_t>(o.maxConnections)) {
      auto oldest =
          evictionsBacklogged ? nullptr : unproven.takeOldest(nullptr, time, kTalkingGrace);
      if (!oldest) return "max-connections";
      evicted.push_back(std::move(oldest));
    }
    const auto it = perSource.find(source);
    if (o.maxConnectionsPerSource > 0 && it != perSource.end() &&
        it->second >= o.maxConnectionsPerSource) {
      auto oldest =
          evictionsBacklogged ? nullptr : unproven.takeOldest(&source, time, kTalkingGrace);
      if (!oldest) return "max-connections-per-source";
      evicted.push_back(std::move(oldest));
    }
    evicting.fetch_add(static_cast<int64_t>(evicted.size()));
    ++perSource[source];
    const auto now = open.fetch_add(1) + 1;
    if (now > openPeak.load()) openPeak.store(now);
    return {};
  }
  void release(const std::string& source) {
    std::lock_guard lock(mutex);
    if (auto it = perSource.find(source); it != perSource.end() && --it->second == 0)
      perSource.erase(it);
    open.fetch_sub(1);
  }

  // Reserves request-body bytes; false when the budget is spent (no lock: one CAS loop).
  bool reserve(std::size_t n, std::size_t budget) {
    std::size_t cur = buffered.load();
    do {
      if (n > budget || cur > budget - n) return false;
    } while (!buffered.compare_exchange_weak(cur, cur + n));
    if (cur + n > bufferedPeak.load()) bufferedPeak.store(cur + n);
    return true;
  }
  void unreserve(std::size_t n) { buffered.fetch_sub(n); }
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
  void overload(std::string_view reason) const {
    if (events.overload) events.overload(reason);
  }
  bool exemptFromClientCert(const std::string& path) const {
    const auto& p = options.clientCertExemptPaths;
    return std::find(p.begin(), p.end(), path) != p.end();
  }
  bool offloaded(const std::string& path) const {
    const auto& p = options.offloadPaths;
    return offload && std::find(p.begin(), p.end(), path) != p.end();
  }

  // Runs the handlers of options.offloadPaths, so a slow one never holds an I/O thread.
  mutable std::optional<net::thread_pool> offload;
  // Runs handlers' network waits (options.waitingThreads): apart from offload, so a scrape never
  // queues behind a reservation waiting on the apiserver.
  mutable std::optional<net::thread_pool> waiting;
};

// The read buffer holds at most one header section: Beast parses a chunked body's trailer
// section only once it is whole in the buffer, so this also holds trailers to the header limit
// (Beast's header_limit does not apply to them). Body bytes leave the buffer as they are parsed.
std::size_t readBufferLimit(const HttpServerOptions& o) {
  return std::max<std::size_t>(o.maxHeaderBytes, 1024);
}

// The first bytes of every body come with the connection, like its read buffer: an ordinary
// 3-8 KB review never waits for the budget, however many large uploads hold it. Bytes beyond
// them are charged in steps.
constexpr std::size_t kFreeBodyBytes = 64u << 10;
// A connection keeps its last body's buffer for the next request up to this size (a typical
// AdmissionReview is 3 to 8 KB): at most 16 MiB over 1,024 connections, inside the free
// allowance above.
constexpr std::size_t kKeptBodyBytes = 16u << 10;
// And its last response body's buffer, offered to the next request's handler (a typical answer
// is 1 to 3 KB): at most 8 MiB over 1,024 connections.
constexpr std::size_t kKeptResponseBytes = 8u << 10;
constexpr std::size_t kBudgetStepBytes = 64u << 10;

// How long a response to a rejected upload may keep reading the rest of the body, so the
// client sees our 413 instead of a reset.
constexpr std::chrono::seconds kDrainTime{2};
constexpr std::size_t kDrainMaxBytes = 64u << 20;

using text::equalsIgnoreCase;

class Session : public std::enable_shared_from_this<Session> {
 public:
  // The connection slot (Registry::admit) is taken by the caller and released here.
  Session(Socket socket, std::shared_ptr<ssl::context> ctx, std::shared_ptr<const SessionEnv> env,
          std::string source)
      : ctx_(std::move(ctx)),
        executor_(socket.get_executor()),
        socket_(std::move(socket)),
        deadlineTimer_(executor_),
        env_(std::move(env)),
        source_(std::move(source)),
        buffer_(readBufferLimit(env_->options)) {}

  ~Session() {
    unreserve();
    {
      std::lock_guard lock(env_->registry->mutex);
      env_->registry->sessions.erase(this);
      if (unprovenSeq_ != 0) env_->registry->unproven.drop(unprovenSeq_);
    }
    env_->registry->release(source_);
    env_->connectionsChanged();
  }

  void start() {
    {
      std::lock_guard lock(env_->registry->mutex);
      env_->registry->sessions.emplace(this, weak_from_this());
      unprovenSeq_ =
          env_->registry->unproven.add(weak_from_this(), source_, std::chrono::steady_clock::now());
    }
    env_->connectionsChanged();
    net::dispatch(executor_, [self = shared_from_this()] { self->awaitHello(); });
  }

  // From any thread: a new connection needs this one's slot. Closed unless it has sent the
  // header of a request meanwhile.
  void evict() {
    net::post(executor_, [self = shared_from_this()] {
      self->env_->registry->evicting.fetch_sub(1);
      if (self->proven_) return;
      self->env_->overload("evicted-unproven");
      self->closeNow();
    });
  }

  // From any thread: finish what is in flight, then close. A connection that has not sent
  // its TLS ClientHello yet has nothing in flight: it closes now instead of holding the exit
  // for the header timeout.
  // While draining, an idle connection still open was never told to close (a response during
  // the drain says "Connection: close" and ends its connection): its client may be sending a
  // request right now, and closing under it fails that request with EOF (the apiserver does
  // not retry). So it keeps its drain wait for one last request, answered with
  // "Connection: close", and is closed when the wait runs out.
  void stop() {
    net::post(executor_, [self = shared_from_this()] {
      self->stopping_ = true;
      if (self->awaitingHello_) return self->closeNow();
      const bool silent =
          self->handshaking_ && SSL_get_state(self->stream_->native_handle()) == TLS_ST_BEFORE;
      if (silent || (self->idle_ && !self->draining())) self->cancelRead();
    });
  }

  // From any thread: the server is draining; an idle connection re-arms its (shorter) wait.
  void drain() {
    net::post(executor_, [self = shared_from_this()] {
      if (self->idle_) self->cancelRead();
    });
  }

 private:
  Socket& lowest() { return beast::get_lowest_layer(*stream_); }
  // The deadline may have closed the socket already (its read's completion still queued, the
  // session still idle): cancelling a closed socket is an error, and here nothing to do.
  void cancelRead() {
    error_code ignored;
    lowest().cancel(ignored);
  }
  bool stopping() const { return stopping_ || env_->registry->stopping; }
  bool draining() const { return env_->registry->draining; }

  // Until the client sends its first bytes the connection is a bare socket: the TLS stream,
  // with its two 17 KiB record buffers and OpenSSL's state, is made only for a client that
  // talks. Silent connections (port scans, floods, a stuck client) cost about a kilobyte.
  void awaitHello() {
    awaitingHello_ = true;
    expiresAfter(env_->options.headerTimeout);
    socket_.async_wait(Socket::wait_read, [self = shared_from_this()](error_code ec) {
      if (!self->awaitingHello_) return;  // closed by the deadline or stop()
      self->awaitingHello_ = false;
      if (ec) return self->closeNow();
      self->talking();
      self->stream_.emplace(std::move(self->socket_), *self->ctx_);
      self->handshake();
    });
  }

  void handshake() {
    handshaking_ = true;
    expiresAfter(env_->options.headerTimeout);
    stream_->async_handshake(ssl::stream_base::server, [self = shared_from_this()](error_code ec) {
      self->handshaking_ = false;
      if (ec) {
        if (!self->stopping()) self->env_->bad("tls-handshake");
        return self->closeNow();
      }
      self->clientVerified_ = self->peerVerified();
      self->awaitRequest();
    });
  }

  // A client certificate was presented and verified against --client-ca (the context asks
  // for one without requiring it, so probes without one still get through the handshake).
  bool peerVerified() {
    SSL* ssl = stream_->native_handle();
    return SSL_get0_peer_certificate(ssl) != nullptr && SSL_get_verify_result(ssl) == X509_V_OK;
  }

  // Waits for the first byte of the next request under the idle timeout; the header timeout
  // starts only once the client has begun a request. While draining, the wait is short: a
  // connection still idle after it is closed between requests.
  void awaitRequest() {
    if (stopping() && !draining()) return gracefulClose();
    if (buffer_.size() > 0) return readHeader();
    const auto now = std::chrono::steady_clock::now();
    if (!idle_) idleSince_ = now;
    auto wait = std::chrono::steady_clock::duration(env_->options.idleTimeout);
    if (draining()) {
      wait = idleSince_ + env_->options.drainIdleTimeout - now;
      if (wait <= wait.zero()) return gracefulClose();
    }
    idle_ = true;
    expiresAfter(wait);
    stream_->async_read_some(
        buffer_.prepare(std::min<std::size_t>(16 * 1024, buffer_.max_size())),
        withMemory(handlerMemory_.get(), [self = shared_from_this()](error_code ec, std::size_t n) {
          if (ec == net::error::operation_aborted && !self->deadlinePassed()) {
            // Re-armed by a drain (shorter wait); cancelled by a stop.
            if (self->draining()) return self->awaitRequest();
            if (self->stopping()) return self->gracefulClose();
          }
          self->idle_ = false;
          if (ec) return self->closeNow();  // idle timeout or client gone
          self->buffer_.commit(n);
          self->readHeader();
        }));
  }

  void readHeader() {
    received_ = std::chrono::steady_clock::now();
    // The last small body's capacity, and none of its bytes, whatever path it took.
    parser_.emplace(req_);
    parser_->body_limit(env_->options.maxBodyBytes);
    parser_->header_limit(static_cast<std::uint32_t>(env_->options.maxHeaderBytes));
    expiresAfter(env_->options.headerTimeout);
    parseHeader();
  }

  void parseHeader() {
    error_code ec;
    if (parseBuffered(&RequestReader::is_header_done, ec)) {
      prove();
      return maybeContinue();
    }
    if (ec) return readFailed(ec, "header-timeout");
    readMore("header-timeout", &Session::parseHeader);
  }

  // The request is read by this loop rather than Beast's read operations: a keep-alive client's
  // request usually arrives whole with its first bytes, and parsing it from the buffer spares a
  // Beast operation and a completion queued on the strand for each step. Parses what the read
  // buffer holds up to `until`, as Beast's read does: true when `until` holds; false with `ec`
  // clear when the parser needs more bytes (then it must not see these bytes again before more
  // arrive: Beast's parser asserts that), or set on an error.
  bool parseBuffered(bool (RequestReader::*until)() const, error_code& ec) {
    while (!((*parser_).*until)()) {
      if (buffer_.size() == 0) return false;
      const std::size_t used = parser_->put(buffer_.data(), ec);
      buffer_.consume(used);
      if (ec == http::error::need_more) ec = {};
      if (ec || used == 0) return false;
    }
    return true;
  }

  // More bytes into the read buffer, then `then` parses again: Beast's read step (a full buffer
  // is buffer_overflow: a header section, or a chunked body's trailers, beyond the header
  // limit; the end of the stream ends a message only where HTTP allows it).
  void readMore(std::string_view timeoutKind, void (Session::*then)()) {
    const std::size_t size = beast::read_size(buffer_, 65536);
    if (size == 0) return readFailed(http::error::buffer_overflow, timeoutKind);
    stream_->async_read_some(
        buffer_.prepare(size),
        withMemory(handlerMemory_.get(),
                   [self = shared_from_this(), timeoutKind, then](error_code ec, std::size_t n) {
                     self->buffer_.commit(n);
                     if (ec == net::error::eof) ec = self->endOfStream();
                     if (ec) return self->readFailed(ec, timeoutKind);
                     ((*self).*then)();
                   }));
  }

  // The client closed its side: the message ends here if it may (Beast's put_eof), else
  // end_of_stream (nothing of a request yet) or the parser's error (a partial message).
  error_code endOfStream() {
    if (!parser_->got_some()) return http::error::end_of_stream;
    error_code ec;
    parser_->put_eof(ec);
    return ec;
  }

  // The first bytes arrived: TLS state is made now, so an eviction has to wait its grace.
  void talking() {
    std::lock_guard lock(env_->registry->mutex);
    env_->registry->unproven.talk(unprovenSeq_);
  }

  // A request header arrived: from now on the connection is never evicted for a new one.
  void prove() {
    if (proven_) return;
    proven_ = true;
    // Here, not at accept: a flood of connections that never send a request costs no slots.
    handlerMemory_ = std::make_unique<HandlerMemory>();
    std::lock_guard lock(env_->registry->mutex);
    env_->registry->unproven.drop(std::exchange(unprovenSeq_, 0));
  }

  // The buffer budget is charged for body bytes received, in steps, never for what a header
  // announces: 8 requests that announced 8 MiB each and sent nothing reserved the whole 64 MiB,
  // and every other review got a 503 for as long as they stalled.
  bool chargeReceived() {
    const std::size_t have = req_.body.size();
    if (have <= kFreeBodyBytes + reserved_) return true;
    const std::size_t step = kBudgetStepBytes;
    const std::size_t want = (have - kFreeBodyBytes + step - 1) / step * step - reserved_;
    if (!env_->registry->reserve(want, env_->options.maxBufferedBytes)) return false;
    reserved_ += want;
    return true;
  }
  void unreserve() {
    if (reserved_) env_->registry->unreserve(std::exchange(reserved_, 0));
  }

  // Before a refusal's drain: the body read so far is dropped with its share of the budget
  // (kept, it would be memory the budget no longer counts).
  void dropRequest() {
    parser_.reset();
    std::string().swap(req_.body);
    unreserve();
  }

  void refuseBusy() {
    dropRequest();
    env_->overload("buffer-budget");
    auto busy = HttpResponse::text(
        503, "server busy: too many request bodies are being read at once; retry", "busy");
    busy.headers.emplace_back("Retry-After", "1");
    write(std::move(busy), false, true);
  }

  // Clients such as curl send "Expect: 100-continue" for large bodies and wait for it. An
  // HTTP/1.0 client cannot read an interim answer: RFC 9110 10.1.1 says to ignore it there.
  void maybeContinue() {
    if (parser_->version() < 11 || !equalsIgnoreCase(parser_->expect(), "100-continue"))
      return readBody();
    continue_.emplace(http::status::continue_, 11);
    expiresAfter(env_->options.bodyTimeout);
    http::async_write(*stream_, *continue_,
                      [self = shared_from_this()](error_code ec, std::size_t) {
                        if (ec) return self->closeNow();
                        self->readBody();
                      });
  }

  // One deadline for the whole body; the budget is charged as its bytes arrive.
  void readBody() {
    expiresAfter(env_->options.bodyTimeout);
    parseBody();
  }
  // What the buffer holds (at most a read buffer's worth, as one read brings), charged to the
  // budget as it arrives, then more.
  void parseBody() {
    if (error_code ec; !parseBuffered(&RequestReader::is_done, ec) && ec)
      return readFailed(ec, "body-timeout");
    if (!chargeReceived()) return refuseBusy();
    if (parser_->is_done()) return handle();
    readMore("body-timeout", &Session::parseBody);
  }

  // The connection's one deadline, for whatever it waits for (the first bytes, the handshake and
  // header, the body, the write, the next request, a drain, the close): when it passes, the
  // connection is closed and the operation in flight fails. Not beast::basic_stream's
  // deadlines: its timer is a net::steady_timer, whose type-erased executor copied the strand
  // to the heap twice per request. The wait is lazy: a later deadline leaves the armed wait
  // alone (it re-arms when it fires early), so a busy connection arms about one wait per
  // timeout period rather than one per operation; only an earlier deadline re-arms it.
  void expiresAfter(std::chrono::steady_clock::duration d) {
    deadline_ = std::chrono::steady_clock::now() + d;
    if (deadlineArmed_ && deadlineTimer_.expiry() <= deadline_) return;
    armDeadline();
  }
  void armDeadline() {
    // Nothing cancelled while armed: the wait has completed and its handler, queued, re-reads
    // the deadline when it runs.
    if (deadlineTimer_.expires_at(deadline_) == 0 && deadlineArmed_) return;
    deadlineArmed_ = true;
    deadlineTimer_.async_wait(
        withMemory(handlerMemory_.get(), [self = shared_from_this()](error_code ec) {
          if (ec == net::error::operation_aborted) return;  // re-armed earlier, or closed
          self->deadlineArmed_ = false;
          if (std::chrono::steady_clock::now() < self->deadline_) return self->armDeadline();
          if (self->awaitingHello_) self->env_->bad("header-timeout");
          self->closeNow();
        }));
  }
  // Below TLS, a passed deadline surfaces as whatever error the closed socket gives the
  // operation (aborted, a TLS or EOF error): the time says it was the deadline.
  bool deadlinePassed() const { return std::chrono::steady_clock::now() >= deadline_; }

  void readFailed(error_code ec, std::string_view timeoutKind) {
    if (deadlinePassed()) {
      env_->bad(timeoutKind);
      return closeNow();
    }
    if (ec == http::error::body_limit) {
      env_->bad("body-too-large");
      return reject(413, "request body exceeds the limit of " +
                             std::to_string(env_->options.maxBodyBytes) + " bytes");
    }
    // buffer_overflow: a header section, or a chunked body's trailer section, that does not
    // fit the read buffer (which is as large as the header limit).
    if (ec == http::error::header_limit || ec == http::error::buffer_overflow) {
      env_->bad("header-too-large");
      return reject(431, "request headers or trailers exceed the limit of " +
                             std::to_string(env_->options.maxHeaderBytes) + " bytes");
    }
    if (ec.category() == make_error_code(http::error::end_of_stream).category() &&
        ec != http::error::end_of_stream && ec != http::error::partial_message) {
      env_->bad("malformed-http");
      return reject(400, "malformed HTTP request: " + ec.message());
    }
    closeNow();  // the client went away (eof, reset, truncated TLS)
  }

  // The connection's request is reused: its strings keep their capacity, so a steady stream of
  // requests allocates none for them. The body's buffer is handed back to the next request's
  // parser when it is small (kKeptBodyBytes), else released: a large upload's memory is not
  // kept by an idle connection.
  void handle() {
    HttpRequest& req = req_;  // method, target, content type and encoding, body: the reader's
    req.path.assign(pathOf(req.target));
    req.received = received_;
    const bool keepAlive = parser_->keep_alive();
    if (env_->options.requireClientCert && !clientVerified_ &&
        !env_->exemptFromClientCert(req.path)) {
      env_->bad("client-cert-required");
      releaseBody();
      return respond(
          HttpResponse::text(
              403, "a client certificate signed by --client-ca is required for " + req.path),
          keepAlive);
    }
    if (env_->offloaded(req.path)) {
      answerOffIoThread(*env_->offload, req, keepAlive, env_->handler);
      return releaseBody();
    }
    HttpResponse res = callHandler(req);
    if (res.finishWaiting) {
      if (env_->waiting) {
        answerOffIoThread(*env_->waiting, req, keepAlive, std::move(res.finishWaiting));
        return releaseBody();
      }
      res = guardedFinish(std::move(res), req);
    }
    releaseBody();
    respond(std::move(res), keepAlive);
  }

  void releaseBody() {
    if (req_.body.capacity() > kKeptBodyBytes) std::string().swap(req_.body);
    req_.body.clear();
  }

  HttpResponse callHandler(const HttpRequest& req) const { return guarded(env_->handler, req); }

  // A handler or a wait that throws answers 500; nothing escapes to an I/O or side thread.
  HttpResponse guarded(const Handler& step, const HttpRequest& req) const {
    try {
      return step(req);
    } catch (const std::exception& e) {
      if (env_->events.handlerError) env_->events.handlerError(req, e.what());
      return HttpResponse::text(500, "internal error", "internal-error");
    }
  }

  // The response's finishWaiting steps (finished()), a throwing one answering 500.
  HttpResponse guardedFinish(HttpResponse res, const HttpRequest& req) const {
    if (!res.finishWaiting) return res;
    return guarded([&res](const HttpRequest& r) { return finished(std::move(res), r); }, req);
  }

  // A /metrics scrape renders every series, a reservation waits on the apiserver: on a side
  // thread, so this I/O thread goes on with handshakes and other requests. The request is a
  // copy (the connection's own is reused). The answer comes back to the connection's strand;
  // the session's reference travels with it, so the session never ends on the side thread.
  void answerOffIoThread(net::thread_pool& pool, HttpRequest req, bool keepAlive, Handler step) {
    net::post(pool, [self = shared_from_this(), req = std::move(req), keepAlive,
                     step = std::move(step)]() mutable {
      HttpResponse res = self->guardedFinish(self->guarded(step, req), req);
      auto executor = self->executor_;
      net::post(executor, [self = std::move(self), res = std::move(res), keepAlive]() mutable {
        self->respond(std::move(res), keepAlive);
      });
    });
  }

  void respond(HttpResponse res, bool keepAlive) {
    unreserve();
    write(std::move(res), keepAlive && !stopping() && !draining(), false);
  }

  void reject(int status, std::string message) {
    dropRequest();
    write(HttpResponse::text(status, std::move(message)), false, true);
  }

  // The head goes into a buffer the connection reuses (server/response_head.hpp: the bytes
  // Beast's serializer wrote), the body is sent as it is, both in one TLS write.
  void write(HttpResponse r, bool keepAlive, bool drainAfter) {
    head_.clear();
    appendResponseHead(head_, r.status, r.contentType, r.headers, keepAlive, r.body.size());
    body_ = std::move(r.body);  // no copy of a response that may be kilobytes
    expiresAfter(env_->options.bodyTimeout);
    // Not a std::array of two buffers: Asio's write loop for that type hands the stream an empty
    // first buffer once the head is out, and Beast's flat_stream then writes nothing and the
    // loop ends with the body unsent (bodies over 16 KiB, tests/server/http_server_test.cpp).
    net::async_write(*stream_, beast::buffers_cat(net::buffer(head_), net::buffer(body_)),
                     withMemory(handlerMemory_.get(), [self = shared_from_this(), keepAlive,
                                                       drainAfter](error_code ec, std::size_t) {
                       self->keepResponseBuffer();
                       if (ec) return self->closeNow();
                       if (drainAfter) return self->drain(0);
                       if (!keepAlive) return self->gracefulClose();
                       self->awaitRequest();
                     }));
  }

  // A sent body's buffer becomes the next handler's spare when small, else it is released: an
  // idle connection keeps at most kKeptResponseBytes of response memory.
  void keepResponseBuffer() {
    if (body_.capacity() <= kKeptResponseBytes && body_.capacity() > req_.spareBody.capacity())
      body_.swap(req_.spareBody);
    std::string().swap(body_);
    req_.spareBody.clear();
  }

  // Reads and drops what the client is still sending, briefly, then closes: closing a socket
  // with unread data makes the kernel send a reset that can destroy our error response.
  void drain(std::size_t total) {
    if (total == 0) expiresAfter(kDrainTime);
    buffer_.consume(buffer_.size());
    stream_->async_read_some(buffer_.prepare(std::min<std::size_t>(64 * 1024, buffer_.max_size())),
                             [self = shared_from_this(), total](error_code ec, std::size_t n) {
                               if (ec || total + n > kDrainMaxBytes) return self->closeNow();
                               self->drain(total + n);
                             });
  }

  // Sends our close_notify without waiting for the peer's: HTTP framing already told the
  // client the response is complete, and a client that never answers must not hold the
  // connection (and a shutdown drain) open.
  void gracefulClose() {
    SSL_set_shutdown(stream_->native_handle(), SSL_RECEIVED_SHUTDOWN);
    expiresAfter(std::chrono::seconds(2));
    stream_->async_shutdown([self = shared_from_this()](error_code) { self->closeNow(); });
  }

  void closeNow() {
    error_code ignored;
    deadlineTimer_.cancel();
    deadlineArmed_ = false;
    if (!stream_) {
      awaitingHello_ = false;
      socket_.close(ignored);
      return;
    }
    lowest().shutdown(Socket::shutdown_both, ignored);
    lowest().close(ignored);
  }

  std::shared_ptr<ssl::context> ctx_;  // before stream_: the stream uses it until destroyed
  Strand executor_;                    // the connection's strand
  Socket socket_;                      // until the client's first bytes, then moved to stream_
  DeadlineTimer deadlineTimer_;        // see expiresAfter()
  std::optional<beast::ssl_stream<Socket>> stream_;
  std::shared_ptr<const SessionEnv> env_;
  std::string source_;  // client IP, for the per-source connection count
  beast::flat_buffer buffer_;
  std::unique_ptr<HandlerMemory> handlerMemory_;  // from the first request header on
  std::optional<RequestReader> parser_;
  HttpRequest req_;  // the request being handled, reused (handle())
  std::optional<http::response<http::empty_body>> continue_;
  std::string head_;  // the response's status line and fields, reused
  std::string body_;  // the response's body while it is written
  std::chrono::steady_clock::time_point deadline_{};  // see expiresAfter()
  bool deadlineArmed_ = false;  // a wait of deadlineTimer_ is in flight (or its completion queued)
  std::chrono::steady_clock::time_point received_{};
  std::chrono::steady_clock::time_point idleSince_{};
  std::size_t reserved_ = 0;     // bytes of the buffer budget this request holds
  bool awaitingHello_ = false;   // no byte from the client yet: no TLS state exists
  bool idle_ = false;            // waiting for a request: stop() may close right away
  bool handshaking_ = false;     // TLS handshake not done yet
  bool clientVerified_ = false;  // a client certificate was presented and verified
  bool stopping_ = false;        // answer what is in flight, then close
  bool proven_ = false;          // a request header arrived (strand only)
  uint64_t unprovenSeq_ = 0;     // its place in Registry::unproven (under the registry mutex)
};

}  // namespace

struct HttpServer::State : std::enable_shared_from_this<HttpServer::State> {
  net::io_context& ioc;
  std::shared_ptr<TlsContextStore> tls;
  std::shared_ptr<SessionEnv> env;
  Strand strand;  // the acceptor's and its timers'
  tcp::acceptor acceptor;
  net::steady_timer backoffTimer;
  // By the strand's own type: a net::steady_timer's type-erased executor is copied to the heap
  // for every wait, once a second for as long as the server runs.
  DeadlineTimer housekeeping;
  std::chrono::milliseconds backoff{0};

  State(net::io_context& io, std::shared_ptr<TlsContextStore> t, std::shared_ptr<SessionEnv> e)
      : ioc(io),
        tls(std::move(t)),
        env(std::move(e)),
        strand(net::make_strand(io)),
        acceptor(strand),
        backoffTimer(strand),
        housekeeping(strand) {}

  void accept() {
    acceptor.async_accept(net::make_strand(ioc),
                          [self = shared_from_this()](error_code ec, Socket socket) {
                            if (!self->acceptor.is_open() || self->env->registry->stopping) return;
                            if (ec) return self->backOff(ec);
                            self->backoff = std::chrono::milliseconds(0);
                            self->open(std::move(socket));
                            self->accept();
                          });
  }

  // EMFILE and friends fail again at once: retrying immediately spins a core and starves
  // the connections that are already open. Wait 5 ms, doubling to 1 s, and say so.
  void backOff(error_code ec) {
    using std::chrono::milliseconds;
    backoff = backoff.count() == 0 ? milliseconds(5) : std::min(backoff * 2, milliseconds(1000));
    if (env->events.acceptError) env->events.acceptError(ec.message(), backoff);
    backoffTimer.expires_after(backoff);
    backoffTimer.async_wait([self = shared_from_this()](error_code e) {
      if (!e && self->acceptor.is_open() && !self->env->registry->stopping) self->accept();
    });
  }

  void open(Socket socket) {
    error_code ec;
    const auto peer = socket.remote_endpoint(ec);
    if (ec) return;  // already gone
    std::string source = peer.address().to_string();
    std::vector<std::shared_ptr<Session>> evicted;
    const auto refused = env->registry->admit(source, env->options, evicted);
    for (auto& old : evicted) old->evict();
    env->registry->evictions.fetch_add(evicted.size());
    if (!refused.empty()) {
      env->overload(refused);
      socket.close(ec);  // before any TLS state exists: a refused connection costs nothing
      return;
    }
    // Without TCP_NODELAY, Nagle holds a small TLS record (session tickets, a short
    // response) until the client's delayed ACK: ~40 ms stalls per new connection.
    socket.set_option(tcp::no_delay(true), ec);
    std::shared_ptr<Session> session;
    try {
      session = std::make_shared<Session>(std::move(socket), tls->current(), env, source);
    } catch (const std::exception&) {
      env->registry->release(source);  // no TLS object (out of memory): drop the connection
      return;
    }
    session->start();
  }

  // Every second: once a burst of connections or uploads is over, give the freed memory back
  // to the system (glibc keeps it otherwise, and RSS stays at the burst's peak).
  void housekeep() {
    housekeeping.expires_after(std::chrono::seconds(1));
    housekeeping.async_wait([self = shared_from_this()](error_code ec) {
      if (ec || self->env->registry->stopping) return;
      self->trimAfterBurst();
      self->housekeep();
    });
  }
  void trimAfterBurst() {
    auto& r = *env->registry;
    const int64_t open = r.open.load(), openPeak = r.openPeak.load();
    const std::size_t buffered = r.buffered.load(), bufferedPeak = r.bufferedPeak.load();
    const bool connectionsGone = openPeak >= 64 && open * 2 < openPeak;
    const bool uploadsGone = bufferedPeak >= (std::size_t{16} << 20) && buffered * 2 < bufferedPeak;
    // Under a flood at the caps every new connection replaces an evicted one: the TLS state
    // freed and allocated in turn fragments the heap, so it is trimmed while that goes on.
    const bool churning = r.evictions.exchange(0) >= 64;
    if (!connectionsGone && !uploadsGone && !churning) return;
    malloc_trim(0);
    r.openPeak.store(open);
    r.bufferedPeak.store(buffered);
  }

  std::vector<std::shared_ptr<Session>> liveSessions() {
    std::vector<std::shared_ptr<Session>> live;
    std::lock_guard lock(env->registry->mutex);
    for (auto& [_, weak] : env->registry->sessions)
      if (auto p = weak.lock()) live.push_back(std::move(p));
    return live;
  }
};

HttpServer::HttpServer(net::io_context& ioc, std::shared_ptr<TlsContextStore> tls, Handler handler,
                       HttpServerOptions options, ServerEvents events) {
  auto env = std::make_shared<SessionEnv>();
  env->handler = std::move(handler);
  env->options = options;
  env->events = std::move(events);
  env->registry = std::make_shared<Registry>();
  if (!options.offloadPaths.empty()) env->offload.emplace(1);
  if (options.waitingThreads > 0) env->waiting.emplace(options.waitingThreads);
  state_ = std::make_shared<State>(ioc, std::move(tls), std::move(env));
}

// A side thread runs handlers that use what the server's owner destroys after it (the webhook
// service, its reserver): none may run past this point. A running one finishes (a reservation
// within its budget); queued ones are dropped with their connections.
HttpServer::~HttpServer() {
  for (auto* pool : {&state_->env->offload, &state_->env->waiting}) {
    if (!*pool) continue;
    (*pool)->stop();
    (*pool)->join();
  }
}

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
  net::dispatch(state_->acceptor.get_executor(), [s = state_] {
    s->accept();
    s->housekeep();
  });
}

void HttpServer::beginDrain() {
  auto s = state_;
  if (s->env->registry->draining.exchange(true)) return;
  for (auto& session : s->liveSessions()) session->drain();
}

void HttpServer::stop() {
  auto s = state_;
  if (s->env->registry->stopping.exchange(true)) return;
  net::post(s->acceptor.get_executor(), [s] {
    error_code ignored;
    s->acceptor.close(ignored);
    s->backoffTimer.cancel();
    s->housekeeping.cancel();
  });
  for (auto& session : s->liveSessions()) session->stop();
}

int64_t HttpServer::openConnections() const {
  return state_->env->registry->open.load();
}

void runCatching(net::io_context& ioc, const std::function<void(std::string_view)>& onException) {
  for (;;) {
    try {
      ioc.run();
      return;
    } catch (const std::exception& e) {
      if (onException) onException(e.what());
    } catch (...) {
      if (onException) onException("unknown exception");
    }
  }
}

}  // namespace gpua::server
