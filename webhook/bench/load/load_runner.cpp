#include "load_runner.hpp"

#include <boost/asio/connect.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/read.hpp>
#include <boost/asio/read_until.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/write.hpp>

#include <chrono>
#include <cstdlib>
#include <memory>
#include <optional>
#include <vector>

#include "proc_stats.hpp"

namespace gpua::load {

namespace {

namespace net = boost::asio;
namespace ssl = net::ssl;
using tcp = net::ip::tcp;
using Clock = std::chrono::steady_clock;
using error_code = boost::system::error_code;

// How long requests still in flight at the end may take before they count as timeouts.
constexpr auto kDrainGrace = std::chrono::seconds(5);

class Runner;

// One client connection: waits for its next slot, (re)connects when needed, sends, reads the
// response (status line, Content-Length, body) and reports it.
class Conn {
 public:
  explicit Conn(Runner& r);
  void next();
  void abort();

 private:
  void go();
  void connect();
  void send();
  void readHeader();
  void onHeader(std::size_t headerBytes);
  void complete();
  void fail(const std::string& what);
  void close();

  Runner& r_;
  net::steady_timer timer_;
  std::optional<ssl::stream<tcp::socket>> stream_;
  bool connected_ = false;
  bool done_ = false;
  std::string buf_;
  Clock::time_point scheduled_{};
  int status_ = 0;
};

class Runner {
 public:
  Runner(const LoadOptions& o, const std::string& request)
      : options(o), request(request), ctx(ssl::context::tls_client), guard(ioc) {
    ctx.set_verify_mode(ssl::verify_none);  // loopback benchmark: the server is ours
    ctx.set_options(ssl::context::no_sslv2 | ssl::context::no_sslv3 | ssl::context::no_tlsv1 |
                    ssl::context::no_tlsv1_1);
    endpoint = *tcp::resolver(ioc).resolve(o.host, std::to_string(o.port)).begin();
    if (o.rate > 0) interval = std::chrono::duration<double>(1.0 / o.rate);
  }
  ~Runner() {
    if (session) SSL_SESSION_free(session);
  }

  RunResult run() {
    start = Clock::now();
    measureFrom = start + toClock(options.warmup);
    end = measureFrom + toClock(options.seconds);
    for (int i = 0; i < options.connections; ++i) conns.push_back(std::make_unique<Conn>(*this));
    active = options.connections;
    for (auto& c : conns) c->next();
    armSampler();
    guard.expires_at(end + kDrainGrace);
    guard.async_wait([this](error_code ec) {
      if (ec) return;
      for (auto& c : conns) c->abort();
    });
    ioc.run();
    result.seconds = options.seconds;
    return std::move(result);
  }

  // The scheduled time of this connection's next request, or nullopt when the run is over.
  std::optional<Clock::time_point> nextSlot() {
    const auto now = Clock::now();
    if (now >= end) return std::nullopt;
    if (!interval) return now;
    // Open loop: slots are spaced by the rate from the start, whatever the responses do.
    const auto t = start + std::chrono::duration_cast<Clock::duration>(*interval * nextIndex++);
    if (t >= end) return std::nullopt;
    return t;
  }

  bool measured(Clock::time_point scheduled) const {
    return scheduled >= measureFrom && scheduled < end;
  }

  void finished() {
    if (--active == 0) guard.cancel();
  }

  void recordError(Clock::time_point scheduled, const std::string& what) {
    if (!measured(scheduled)) return;
    ++result.errors;
    if (result.firstError.empty()) result.firstError = what;
  }

  const LoadOptions& options;
  const std::string& request;
  net::io_context ioc{1};
  ssl::context ctx;
  tcp::endpoint endpoint;
  SSL_SESSION* session = nullptr;  // the latest resumable session (no keep-alive mode)
  RunResult result;

 private:
  static Clock::duration toClock(double seconds) {
    return std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
  }

  // Server and client CPU are sampled at the window's edges, not over the warm-up.
  void armSampler() {
    sampler = std::make_unique<net::steady_timer>(ioc, measureFrom);
    sampler->async_wait([this](error_code) {
      const auto atStart = sample();
      sampler->expires_at(end);
      sampler->async_wait([this, atStart](error_code) {
        const auto atEnd = sample();
        result.clientCpuSeconds = atEnd.client - atStart.client;
        result.serverCpuSeconds = atEnd.server - atStart.server;
        result.serverPeakRssMiB = atEnd.peakRss;
        result.serverRunqueueWaitSeconds = atEnd.runqueueWait - atStart.runqueueWait;
      });
    });
  }
  struct Sample {
    double client = 0, server = 0, peakRss = 0, runqueueWait = 0;
  };
  Sample sample() const {
    Sample s{selfCpuSeconds(), 0, 0};
    if (options.serverPid > 0)
      if (auto p = readProcStats(options.serverPid))
        s.server = p->cpuSeconds, s.peakRss = p->peakRssMiB,
        s.runqueueWait = p->runqueueWaitSeconds;
    return s;
  }

  std::vector<std::unique_ptr<Conn>> conns;
  std::unique_ptr<net::steady_timer> sampler;
  net::steady_timer guard;
  int active = 0;
  Clock::time_point start, measureFrom, end;
  std::optional<std::chrono::duration<double>> interval;
  uint64_t nextIndex = 0;
};

Conn::Conn(Runner& r) : r_(r), timer_(r.ioc) {}

void Conn::next() {
  const auto slot = r_.nextSlot();
  if (!slot) {
    close();
    done_ = true;
    return r_.finished();
  }
  scheduled_ = *slot;
  if (scheduled_ <= Clock::now()) return go();
  timer_.expires_at(scheduled_);
  timer_.async_wait([this](error_code ec) {
    if (!ec) go();
  });
}

void Conn::abort() {
  if (done_) return;
  r_.recordError(scheduled_, "timeout: no response within the drain grace period");
  done_ = true;
  timer_.cancel();
  // Only close the socket: pending operations complete with an error and find done_ set; the
  // stream itself must outlive them.
  error_code ignored;
  if (stream_) stream_->lowest_layer().close(ignored);
  r_.finished();
}

void Conn::go() {
  connected_ ? send() : connect();
}

void Conn::connect() {
  stream_.emplace(r_.ioc, r_.ctx);
  if (r_.options.resume && r_.session) SSL_set_session(stream_->native_handle(), r_.session);
  stream_->lowest_layer().async_connect(r_.endpoint, [this](error_code ec) {
    if (done_) return;
    if (ec) return fail("connect: " + ec.message());
    stream_->lowest_layer().set_option(tcp::no_delay(true));
    stream_->async_handshake(ssl::stream_base::client, [this](error_code ec2) {
      if (done_) return;
      if (ec2) return fail("tls handshake: " + ec2.message());
      ++r_.result.handshakes;
      if (SSL_session_reused(stream_->native_handle())) ++r_.result.resumed;
      connected_ = true;
      send();
    });
  });
}

void Conn::send() {
  net::async_write(*stream_, net::buffer(r_.request), [this](error_code ec, std::size_t) {
    if (done_) return;
    if (ec) return fail("write: " + ec.message());
    readHeader();
  });
}

void Conn::readHeader() {
  buf_.clear();
  net::async_read_until(*stream_, net::dynamic_buffer(buf_), "\r\n\r\n",
                        [this](error_code ec, std::size_t n) {
                          if (done_) return;
                          if (ec) return fail("read: " + ec.message());
                          onHeader(n);
                        });
}

// Status from "HTTP/1.1 200 OK", length from Content-Length (the server always sends it).
void Conn::onHeader(std::size_t headerBytes) {
  const std::string_view head(buf_.data(), headerBytes);
  status_ = head.size() > 12 ? std::atoi(head.data() + 9) : 0;
  std::size_t length = 0;
  for (auto key : {"Content-Length: ", "content-length: "})
    if (auto at = head.find(key); at != std::string_view::npos)
      length = std::strtoul(head.data() + at + 16, nullptr, 10);
  const std::size_t need = headerBytes + length;
  if (buf_.size() >= need) return complete();
  net::async_read(*stream_, net::dynamic_buffer(buf_), net::transfer_exactly(need - buf_.size()),
                  [this](error_code ec, std::size_t) {
                    if (done_) return;
                    if (ec) return fail("read body: " + ec.message());
                    complete();
                  });
}

void Conn::complete() {
  if (status_ != 200 || buf_.find("\"allowed\":") == std::string::npos) {
    r_.recordError(scheduled_, "HTTP " + std::to_string(status_) + ": " + buf_.substr(0, 200));
  } else if (r_.measured(scheduled_)) {
    ++r_.result.ok;
    r_.result.latency.add(
        std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - scheduled_).count());
  }
  if (!r_.options.keepAlive) {
    // Count the connection as shut down cleanly: otherwise OpenSSL marks its session not
    // resumable when the SSL object is freed, and resumption never happens.
    SSL_set_shutdown(stream_->native_handle(), SSL_SENT_SHUTDOWN | SSL_RECEIVED_SHUTDOWN);
    if (r_.options.resume) {
      SSL_SESSION* s = SSL_get1_session(stream_->native_handle());
      if (s && SSL_SESSION_is_resumable(s)) {
        if (r_.session) SSL_SESSION_free(r_.session);
        r_.session = s;
      } else if (s) {
        SSL_SESSION_free(s);
      }
    }
    close();
  }
  next();
}

void Conn::fail(const std::string& what) {
  r_.recordError(scheduled_, what);
  close();
  next();
}

void Conn::close() {
  connected_ = false;
  if (!stream_) return;
  error_code ignored;
  stream_->lowest_layer().close(ignored);
  stream_.reset();
}

}  // namespace

RunResult runLoad(const LoadOptions& options, const std::string& request) {
  Runner runner(options, request);
  return runner.run();
}

}  // namespace gpua::load
