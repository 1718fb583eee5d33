// Server and TLS faults (docs/reliability.md): resource exhaustion (idle connections, stalled
// uploads, the open-file limit), rollouts under keep-alive load, certificate faults, --client-ca
// with probes, SIGHUP, the thread count and the banner. Each test starts the real binary on
// 127.0.0.1 and every loop is bounded. Memory bounds are asserted on release builds only
// (sanitizers multiply the footprint by design).
#include <atomic>
#include <regex>
#include <thread>

#include "cert_factory.hpp"
#include "e2e_fixture.hpp"
#include "e2e_process_probe.hpp"

namespace gpua::testing {
namespace {

using namespace std::chrono_literals;
namespace fs = std::filesystem;

constexpr bool kMeasuresMemory = !kSanitized;

constexpr uint64_t kMemoryBound = uint64_t{128} << 20;  // the RSS bound under every fault

// Log lines are written asynchronously: wait for one to appear.
bool logged(ServerProcess& server, const std::string& text) {
  return eventually([&] { return server.out().find(text) != std::string::npos; });
}

// The value of one sample line of the exposition ("name{labels} value"), or -1.
double sample(const std::string& metrics, const std::string& series) {
  const auto at = metrics.find("\n" + series + " ");
  if (at == std::string::npos) return -1;
  return std::stod(metrics.substr(at + series.size() + 2));
}

struct Fds {
  std::vector<int> fds;
  ~Fds() { closeAll(); }
  void closeAll() {
    for (int fd : fds) ::close(fd);
    fds.clear();
  }
};

// 10,000 connection attempts from 10 sources, each sending the first byte of a TLS
// record (so the server builds its TLS state) and then nothing.
TEST_F(E2eTest, IdleConnectionFloodStaysUnderTheMemoryBoundAndMemoryComesBack) {
  raiseOwnFileLimit();
  auto& server = start({"--header-timeout", "60s"});
  auto kept = client();  // the apiserver's keep-alive connection, opened before the flood
  ASSERT_TRUE(allowed(kept.request("POST", "/mutate", reviewJson(podJson(1), "before"))));
  const uint64_t base = rssBytes(server.pid());
  uint64_t peak = base;
  Fds flood;
  for (int i = 0; i < 10'000; ++i) {
    const int fd = connectFrom("127.0.0." + std::to_string(2 + i / 1000), port_, "\x16");
    if (fd >= 0) flood.fds.push_back(fd);
    if (i % 1000 != 999) continue;
    const auto res = kept.request("POST", "/mutate", reviewJson(podJson(1), "during"));
    ASSERT_EQ(res.status, 200) << "normal requests keep being answered";
    peak = std::max(peak, rssBytes(server.pid()));
    if (kMeasuresMemory) {
      ASSERT_LT(peak, kMemoryBound) << "after " << i + 1 << " connections";
    }
  }
  std::this_thread::sleep_for(500ms);
  peak = std::max(peak, rssBytes(server.pid()));
  if (kMeasuresMemory) {
    EXPECT_LT(peak, kMemoryBound);
  }
  // At the caps a new connection evicts the oldest one that never sent a request, or is
  // refused while every such one is still within its grace.
  const auto m = kept.request("GET", "/metrics").body;
  double shed = 0;
  for (const char* reason : {"evicted-unproven", "max-connections", "max-connections-per-source"})
    shed += sample(
        m, std::string("gpu_admission_overload_rejections_total{reason=\"") + reason + "\"}");
  EXPECT_GT(shed, 0) << m;
  flood.closeAll();
  EXPECT_TRUE(eventually([&] { return healthy(); }, 10s));
  if (kMeasuresMemory) {
    // Memory of the burst goes back to the system (malloc_trim once the burst is over).
    const uint64_t half = base + (peak - base) / 2;
    EXPECT_TRUE(eventually([&] { return rssBytes(server.pid()) <= half; }, 10s))
        << "base " << base << " peak " << peak << " now " << rssBytes(server.pid());
  }
  std::printf("idle flood: rss base %.1f MiB, peak %.1f MiB, after %.1f MiB\n", base / 1048576.0,
              peak / 1048576.0, rssBytes(server.pid()) / 1048576.0);
}

// At the connection cap every new connection was closed at accept: 682 silent connects from two
// addresses locked out the kubelet's probes and the apiserver; 3,000 from the prober's own
// address did the same. Now the oldest connections that never sent a request make room, and a
// connection that has sent one (the apiserver's kept-alive one) is never touched.
TEST_F(E2eTest, SilentConnectionsAtTheCapsMakeRoomForProbesAndTheApiserver) {
  raiseOwnFileLimit();
  auto& server = start(
      {"--max-connections", "64", "--max-connections-per-source", "32", "--header-timeout", "60s"});
  auto kept = client();
  ASSERT_EQ(kept.request("POST", "/validate", reviewJson(podJson(1), "before")).status, 200);
  Fds flood;
  for (int i = 0; i < 300; ++i) {
    const int fd = connectFrom(i % 2 ? "127.0.0.2" : "127.0.0.3", port_);
    if (fd >= 0) flood.fds.push_back(fd);
  }
  std::this_thread::sleep_for(200ms);
  for (int i = 0; i < 10; ++i)
    EXPECT_EQ(client().request("GET", "/healthz").status, 200) << "probe " << i << ", 3rd address";
  for (int i = 0; i < 3000; ++i) {  // the prober's own address
    const int fd = connectFrom("127.0.0.1", port_);
    if (fd >= 0) flood.fds.push_back(fd);
  }
  std::this_thread::sleep_for(200ms);
  for (int i = 0; i < 10; ++i)
    EXPECT_EQ(client().request("GET", "/healthz").status, 200) << "probe " << i << ", own address";
  EXPECT_EQ(kept.request("POST", "/validate", reviewJson(podJson(1), "after")).status, 200)
      << "a connection that sent a request is never evicted";
  // Connections that began a TLS handshake and stalled fill the caps: they have a second to
  // finish, then they make room too.
  flood.closeAll();
  for (int i = 0; i < 300; ++i) {
    const int fd = connectFrom(i % 2 ? "127.0.0.2" : "127.0.0.3", port_, "\x16");
    if (fd >= 0) flood.fds.push_back(fd);
  }
  std::this_thread::sleep_for(1200ms);
  for (int i = 0; i < 10; ++i)
    EXPECT_EQ(client().request("GET", "/healthz").status, 200) << "probe " << i << ", stalled TLS";
  EXPECT_GT(
      sample(metrics(), "gpu_admission_overload_rejections_total{reason=\"evicted-unproven\"}"), 0);
  EXPECT_TRUE(healthy());
  (void)server;
}

// 40 clients each send 7.99 MB of an 8 MB body and stop.
TEST_F(E2eTest, StalledUploadsStayWithinTheBufferBudget) {
  auto& server = start({"--body-timeout", "60s"});
  const uint64_t base = rssBytes(server.pid());
  // The default budget: a quarter of the memory limit (64 MiB without one), as logged.
  ASSERT_TRUE(
      eventually([&] { return server.out().find("\"msg\":\"serving\"") != std::string::npos; }));
  std::smatch budget;
  const std::string log = server.out();
  uint64_t maxBuffered = uint64_t{64} << 20;
  if (std::regex_search(log, budget, std::regex("\"maxBufferedBytes\":([0-9]+)")))
    maxBuffered = std::stoull(budget[1]);
  const std::size_t announced = 8'000'000, sent = 7'990'000;
  const std::string chunk(1u << 20, 'x');
  std::vector<std::unique_ptr<TlsTestClient>> stalled;
  for (int i = 0; i < 40; ++i) {
    stalled.push_back(newClient());
    try {
      stalled.back()->writeRaw(
          "POST /mutate HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
          "Content-Length: " +
          std::to_string(announced) + "\r\n\r\n");
      for (std::size_t done = 0; done < sent; done += chunk.size())
        stalled.back()->writeRaw(chunk.substr(0, std::min(chunk.size(), sent - done)));
    } catch (const std::exception&) {
      // refused with a 503 and closed after draining: fine
    }
  }
  std::this_thread::sleep_for(300ms);
  const uint64_t rss = rssBytes(server.pid());
  if (kMeasuresMemory) {
    EXPECT_LT(rss, base + maxBuffered + (uint64_t{24} << 20)) << "base " << base;
    if (maxBuffered <= (uint64_t{64} << 20)) {
      EXPECT_LT(rss, kMemoryBound);
    }
  }
  EXPECT_TRUE(healthy());
  EXPECT_TRUE(allowed(post("/mutate", reviewJson(podJson(1), "small"))))
      << "small reviews still fit";
  const auto m = metrics();
  EXPECT_GT(sample(m, "gpu_admission_overload_rejections_total{reason=\"buffer-budget\"}"), 0) << m;
  std::printf("stalled uploads: rss base %.1f MiB, with 40 stalled %.1f MiB\n", base / 1048576.0,
              rss / 1048576.0);
}

// At the open-file limit the accept loop backs off instead of spinning, logs,
// counts, keeps serving the connections it has, and serves new ones again once files are free.
TEST_F(E2eTest, AcceptAtTheFileLimitBacksOffLogsAndRecovers) {
  // Release builds only. Tried under ASan/UBSan (limit 48, and 128 so that --max-connections
  // is not capped below the flood): the sanitized server dies at the first EMFILE with a false
  // "runtime error: member call on address ... which does not point to an object of type
  // 'error_category' ... invalid vptr" from boost/system/error_code.hpp. On a type-cache miss
  // UBSan's vptr check verifies the vtable with IsAccessibleMemoryRange(), which needs a pipe;
  // with no file free the pipe fails and the check reports the valid object as invalid. The
  // call is Boost's own (error_code's bool and message() are virtual calls on the category),
  // made on every accept error, so no ordering of the test avoids it. The sanitizers still
  // cover the back-off code through every other e2e test that reaches the accept loop, and
  // the soak. The CPU bound is the product's and is a release figure in any case.
  if (!kMeasuresMemory) GTEST_SKIP() << "UBSan's vptr check cannot run out of files (see above)";
  launcher_ = {"/usr/bin/prlimit", "--nofile=48:48", "--"};
  auto& server = start();   // the flood stays below the default connection limits (341 a source)
  auto kept = newClient();  // a kept-alive connection from before the flood
  ASSERT_EQ(kept->request("GET", "/healthz").status, 200);
  Fds flood;
  for (int i = 0; i < 80; ++i)
    if (const int fd = connectFrom("127.0.0.2", port_); fd >= 0) flood.fds.push_back(fd);
  std::this_thread::sleep_for(300ms);  // the server has run out of files
  const uint64_t before = cpuTicks(server.pid());
  std::this_thread::sleep_for(1s);
  const uint64_t ticks = cpuTicks(server.pid()) - before;
  const long perSecond = ::sysconf(_SC_CLK_TCK);
  EXPECT_LT(static_cast<double>(ticks), 0.2 * static_cast<double>(perSecond))
      << "the accept loop must not spin at EMFILE (" << ticks << " ticks in 1 s)";
  EXPECT_TRUE(logged(server, "accept failed; backing off")) << server.out();
  EXPECT_EQ(kept->request("GET", "/healthz").status, 200) << "out of files, still serving";
  flood.closeAll();
  EXPECT_TRUE(eventually([&] { return healthy(); }, 10s)) << "serves new connections again";
  EXPECT_GT(sample(metrics(), "gpu_admission_accept_errors_total"), 0);
}

// The soft open-file limit is raised to the hard limit at start.
TEST_F(E2eTest, RaisesTheSoftOpenFileLimitAtStart) {
  launcher_ = {"/usr/bin/prlimit", "--nofile=256:4096", "--"};
  auto& server = start();
  EXPECT_TRUE(eventually([&] {
    return server.out().find("\"openFileLimit\":4096") != std::string::npos;
  })) << server.out();
  std::ifstream limits("/proc/" + std::to_string(server.pid()) + "/limits");
  std::string text((std::istreambuf_iterator<char>(limits)), std::istreambuf_iterator<char>());
  EXPECT_TRUE(std::regex_search(text, std::regex("Max open files +4096 +4096"))) << text;
}

// The default thread count follows the affinity mask, not the node's CPUs.
TEST_F(E2eTest, DefaultThreadsFollowTheAffinityMask) {
  if (std::thread::hardware_concurrency() < 2) GTEST_SKIP() << "needs a machine with 2 CPUs";
  launcher_ = {"/usr/bin/taskset", "-c", "0"};
  // The fixture passes --threads 2; a later --threads would win, so start without it.
  std::vector<std::string> args{"serve",
                                "--policies",
                                policyDir(trainingPolicy(2)),
                                "--tls-cert",
                                cert("server.crt"),
                                "--tls-key",
                                cert("server.key"),
                                "--listen",
                                "127.0.0.1:0"};
  server_ = std::make_unique<ServerProcess>(args, work_.path().string(), launcher_);
  port_ = server_->waitForPort();
  EXPECT_TRUE(eventually([&] {
    return server_->out().find("\"threads\":1,") != std::string::npos;
  })) << server_->out();
}

// Keep-alive clients POSTing through a SIGTERM with --shutdown-delay see no failed
// request: during the delay every response says "Connection: close", and a client that got it
// goes elsewhere (in a cluster: to another replica behind the Service).
TEST_F(E2eTest, KeepAliveClientsSeeNoFailedPostDuringARollout) {
  auto& server = start({"--shutdown-delay", "2s", "--shutdown-grace", "5s"});
  std::atomic<bool> signalled{false};
  std::atomic<int> failures{0}, closesAfterSignal{0}, answered{0};
  std::vector<std::thread> clients;
  std::mutex errorsMutex;
  std::vector<std::string> errors;
  for (int t = 0; t < 6; ++t) {
    clients.emplace_back([&, t] {
      const auto stopAt = std::chrono::steady_clock::now() + 6s;
      std::unique_ptr<TlsTestClient> c;
      int n = 0;
      while (std::chrono::steady_clock::now() < stopAt) {
        try {
          if (!c) c = newClient();
          const auto res =
              c->request("POST", "/mutate",
                         reviewJson(podJson(1), std::to_string(t) + "-" + std::to_string(++n)));
          if (res.status != 200) throw std::runtime_error("status " + std::to_string(res.status));
          ++answered;
          if (!res.keepAlive) {
            c.reset();
            if (signalled) {
              ++closesAfterSignal;
              return;  // the Service routes this client elsewhere now
            }
          }
        } catch (const std::exception& e) {
          ++failures;
          std::lock_guard lock(errorsMutex);
          errors.emplace_back(e.what());
          c.reset();
          if (signalled) return;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(2 + t));
      }
    });
  }
  std::this_thread::sleep_for(800ms);
  signalled = true;
  server.signal(SIGTERM);
  for (auto& c : clients) c.join();
  EXPECT_EQ(failures.load(), 0) << (errors.empty() ? "" : errors.front());
  EXPECT_EQ(closesAfterSignal.load(), 6) << "every client was told to close during the delay";
  EXPECT_GT(answered.load(), 0);
  EXPECT_EQ(server.waitExit(10s), 0) << server.err();
}

// With the binary's default delay, clients that reconnect after every "Connection: close" (the
// harshest case: nothing routes them elsewhere) see no failed request over three SIGTERMs.
// Before, an idle connection opened late in the delay was closed when the delay ended, and the
// POST its client was writing failed with EOF. A connect refused once the listener is closed is
// not a failed request: nothing was sent.
TEST_F(E2eTest, NoRequestFailsOverThreeSigtermsWithTheDefaultDelay) {
  defaultShutdownDelay_ = true;
  const auto policies = policyDir(trainingPolicy(2));
  for (int round = 0; round < 3; ++round) {
    auto& server = start({}, policies);
    std::atomic<int> failures{0}, answered{0};
    std::mutex errorsMutex;
    std::vector<std::string> errors;
    std::vector<std::thread> clients;
    for (int t = 0; t < 8; ++t) {
      clients.emplace_back([&, t] {
        for (int n = 0;;) {
          std::unique_ptr<TlsTestClient> c;
          try {
            c = newClient();
          } catch (const std::exception&) {
            return;  // the listener has closed: the replica is gone
          }
          for (bool open = true; open;) {
            try {
              const auto res =
                  c->request("POST", "/validate",
                             reviewJson(podJson(1), std::to_string(t) + "-" + std::to_string(++n)));
              if (res.status != 200)
                throw std::runtime_error("status " + std::to_string(res.status));
              ++answered;
              open = res.keepAlive;
            } catch (const std::exception& e) {
              ++failures;
              std::lock_guard lock(errorsMutex);
              errors.emplace_back(e.what());
              return;
            }
            std::this_thread::sleep_for(std::chrono::milliseconds(1 + t));
          }
        }
      });
    }
    std::this_thread::sleep_for(500ms);
    server.signal(SIGTERM);
    for (auto& c : clients) c.join();
    EXPECT_EQ(failures.load(), 0) << "round " << round << ": "
                                  << (errors.empty() ? "" : errors.front());
    EXPECT_GT(answered.load(), 0);
    EXPECT_EQ(server.waitExit(20s), 0) << server.err();
    server_.reset();
  }
}

// A connection that never starts its TLS handshake does not hold up the exit.
TEST_F(E2eTest, SilentConnectionDoesNotHoldUpTheExit) {
  auto& server = start();
  Fds silent;
  silent.fds.push_back(connectFrom("127.0.0.1", port_));
  ASSERT_GE(silent.fds.back(), 0);
  std::this_thread::sleep_for(200ms);
  const auto signalled = std::chrono::steady_clock::now();
  server.signal(SIGTERM);
  EXPECT_EQ(server.waitExit(10s), 0);
  EXPECT_LT(std::chrono::steady_clock::now() - signalled, 2s);
}

// With --client-ca, probes and scrapes without a client certificate still work;
// admission requests need one.
TEST_F(E2eTest, ClientCaLeavesProbesAndMetricsOpenAndGuardsAdmission) {
  const std::string d = shared_->file("certs");
  const std::string cmd =
      "cd '" + d +
      "' && openssl ecparam -name prime256v1 -genkey -noout -out client.key 2>/dev/null && "
      "openssl req -new -key client.key -subj /CN=kube-apiserver -out client.csr 2>/dev/null && "
      "printf 'extendedKeyUsage=clientAuth\\n' > client.ext && "
      "openssl x509 -req -in client.csr -CA ca.crt -CAkey ca.key -set_serial 9 -days 1 "
      "-extfile client.ext -out client.crt 2>/dev/null";
  ASSERT_EQ(std::system(cmd.c_str()), 0);
  start({"--client-ca", cert("ca.crt")});
  auto probe = client();
  EXPECT_EQ(probe.request("GET", "/healthz").status, 200);
  EXPECT_EQ(probe.request("GET", "/readyz").status, 200);
  EXPECT_EQ(probe.request("GET", "/metrics").status, 200);
  const auto refused = probe.request("POST", "/mutate", reviewJson(podJson(1), "anon"));
  EXPECT_EQ(refused.status, 403) << refused.body;

  ClientOptions o;
  o.caFile = cert("ca.crt");
  o.clientCert = cert("client.crt");
  o.clientKey = cert("client.key");
  TlsTestClient apiserver(port_, o);
  EXPECT_TRUE(allowed(apiserver.request("POST", "/mutate", reviewJson(podJson(1), "apiserver"))));
}

// SIGHUP reloads now (no wait for the next poll), is logged, and does not exit.
TEST_F(E2eTest, SighupReloadsNowAndKeepsServing) {
  auto& server = start({"--reload-interval", "60m"});
  const auto fourGpus = [this] { return allowed(post("/validate", reviewJson(podJson(4), "h"))); };
  EXPECT_FALSE(fourGpus());
  writePolicyVersion(trainingPolicy(8));
  std::this_thread::sleep_for(300ms);
  EXPECT_FALSE(fourGpus()) << "no poll within an hour";
  server.signal(SIGHUP);
  EXPECT_TRUE(eventually(fourGpus)) << server.out() << server.err();
  EXPECT_TRUE(logged(server, "SIGHUP")) << server.out();
  EXPECT_TRUE(healthy());
}

// The banner's curl names a CA file that exists, or none.
TEST_F(E2eTest, BannerNamesOnlyACaFileThatExists) {
  const auto dir = work_.path() / "tls";
  fs::create_directories(dir);
  fs::copy_file(cert("server.crt"), dir / "tls.crt");
  fs::copy_file(cert("server.key"), dir / "tls.key");
  fs::copy_file(cert("ca.crt"), dir / "my-ca.pem");
  certFile_ = (dir / "tls.crt").string();
  keyFile_ = (dir / "tls.key").string();
  auto& server = start();
  EXPECT_EQ(server.err().find((dir / "ca.crt").string()), std::string::npos) << server.err();
  EXPECT_NE(server.err().find("curl "), std::string::npos) << server.err();
}

TEST_F(E2eTest, BannerNamesTheCaBesideTheCertificate) {
  auto& server = start();
  EXPECT_NE(server.err().find("--cacert " + cert("ca.crt")), std::string::npos) << server.err();
}

// A Secret-volume layout whose ..data can be pointed at any version directory.
struct SecretDir {
  fs::path dir;
  explicit SecretDir(fs::path d) : dir(std::move(d)) { fs::create_directories(dir); }
  std::string version(const std::string& name) const {
    fs::create_directories(dir / name);
    return (dir / name).string();
  }
  void publish(const std::string& name) const {
    swapDataSymlink(dir, name);
    std::error_code ec;
    fs::create_symlink("..data/server.crt", dir / "tls.crt", ec);
    fs::create_symlink("..data/server.key", dir / "tls.key", ec);
  }
};

// An expired or not-yet-valid pair is refused while the served one is valid; a
// pair whose SANs lack the service name is served with a warning; metrics say what happened.
TEST_F(E2eTest, CertificateRotationRefusesPairsOutsideTheirValidity) {
  const SecretDir secret(work_.path() / "tls");
  const auto ca = cert("ca.crt"), caKey = cert("ca.key");
  LeafSpec good;
  good.serial = 101;
  makeLeaf(ca, caKey, secret.version("..good"), good);
  secret.publish("..good");
  certFile_ = (secret.dir / "tls.crt").string();
  keyFile_ = (secret.dir / "tls.key").string();
  auto& server = start();
  const auto serial = [this] { return client().peerSerialHex(); };
  ASSERT_EQ(serial(), "65");  // 101
  const auto before = metrics();
  EXPECT_GT(sample(before, "gpu_admission_certificate_not_before_timestamp_seconds"), 0) << before;
  EXPECT_GT(sample(before, "gpu_admission_certificate_last_reload_success_timestamp_seconds"), 0);

  LeafSpec expired;
  expired.serial = 102;
  expired.notBeforeOffset = -7200;
  expired.notAfterOffset = -3600;
  makeLeaf(ca, caKey, secret.version("..expired"), expired);
  secret.publish("..expired");
  EXPECT_TRUE(eventually([&] {
    return sample(metrics(), "gpu_admission_certificate_reload_failures_total") == 1;
  })) << server.out();
  EXPECT_TRUE(logged(server, "expired at")) << server.out();
  EXPECT_EQ(serial(), "65") << "the valid certificate keeps serving";

  LeafSpec future;
  future.serial = 103;
  future.notBeforeOffset = 3600;
  makeLeaf(ca, caKey, secret.version("..future"), future);
  secret.publish("..future");
  EXPECT_TRUE(eventually([&] {
    return sample(metrics(), "gpu_admission_certificate_reload_failures_total") == 2;
  })) << server.out();
  EXPECT_TRUE(logged(server, "not valid before")) << server.out();
  EXPECT_EQ(serial(), "65");
  EXPECT_EQ(client().request("GET", "/readyz").status, 200);
}

// A pair rotated in whose SANs lack the service name was served while /readyz said Ready, and
// every verified handshake failed: it is refused like an expired one (the served pair stays).
// Served from the start, it makes the replica unready, with the reason.
TEST_F(E2eTest, CertificateWithoutTheServiceNameIsRefusedOrMakesTheReplicaUnready) {
  const SecretDir secret(work_.path() / "tls");
  const auto ca = cert("ca.crt"), caKey = cert("ca.key");
  LeafSpec good;
  good.serial = 105;
  makeLeaf(ca, caKey, secret.version("..good"), good);
  secret.publish("..good");
  certFile_ = (secret.dir / "tls.crt").string();
  keyFile_ = (secret.dir / "tls.key").string();
  const auto policies = policyDir(trainingPolicy(2));
  auto& server = start({"--service-dns-name", "gpu-admission.gpu-admission.svc"}, policies);
  EXPECT_EQ(server.out().find("do not include the service name"), std::string::npos);
  LeafSpec wrongName;
  wrongName.serial = 104;
  wrongName.dnsNames = {"somewhere-else.example", "localhost"};
  makeLeaf(ca, caKey, secret.version("..wrong-name"), wrongName);
  secret.publish("..wrong-name");
  EXPECT_TRUE(eventually([&] {
    return sample(metrics(), "gpu_admission_certificate_reload_failures_total") == 1;
  })) << server.out();
  EXPECT_TRUE(logged(server, "do not include the service name")) << server.out();
  EXPECT_EQ(client().peerSerialHex(), "69") << "the pair with the name keeps serving (105)";
  EXPECT_EQ(client().request("GET", "/readyz").status, 200);

  // Started with the wrong pair: nothing better to keep, so it serves and says it is not ready.
  server.signal(SIGTERM);
  ASSERT_EQ(server.waitExit(15s), 0);
  server_.reset();
  start({"--service-dns-name", "gpu-admission.gpu-admission.svc"}, policies);
  ClientOptions probe;  // the kubelet does not verify the serving certificate
  probe.verifyPeer = false;
  const auto res = TlsTestClient(port_, probe).request("GET", "/readyz");
  EXPECT_EQ(res.status, 503) << res.body;
  EXPECT_NE(res.body.find("lacks the service name"), std::string::npos) << res.body;
}

// /readyz goes unready once the served certificate has expired.
TEST_F(E2eTest, ReadyzFailsOnceTheServedCertificateHasExpired) {
  const SecretDir secret(work_.path() / "tls");
  LeafSpec shortLived;
  shortLived.notAfterOffset = 6;
  const auto made = std::chrono::steady_clock::now();
  makeLeaf(cert("ca.crt"), cert("ca.key"), secret.version("..v1"), shortLived);
  secret.publish("..v1");
  certFile_ = (secret.dir / "tls.crt").string();
  keyFile_ = (secret.dir / "tls.key").string();
  start();
  ClientOptions probe;  // the kubelet does not verify the serving certificate
  probe.verifyPeer = false;
  if (std::chrono::steady_clock::now() < made + 5s) {
    EXPECT_EQ(TlsTestClient(port_, probe).request("GET", "/readyz").status, 200);
  }
  std::this_thread::sleep_until(made + 7s);
  const auto res = TlsTestClient(port_, probe).request("GET", "/readyz");
  EXPECT_EQ(res.status, 503) << res.body;
  EXPECT_NE(res.body.find("certificate expired"), std::string::npos) << res.body;
}

}  // namespace
}  // namespace gpua::testing
