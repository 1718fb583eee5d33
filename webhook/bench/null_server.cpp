// The null server: the same HTTPS server code (gpua_server_core: Beast sessions, TLS contexts,
// timeouts, limits) with a constant AdmissionReview response and no engine per request. Its
// throughput in the same run is the ceiling gpu-admission is compared with.
//
// The ceiling must be "same traffic, no work": by default the constant response is the real
// gpu-admission response to the bench's typical pod (computed once at start-up by running the
// real review with the shipped policy), so the bytes encrypted and sent per request match.
// `--response tiny` answers the old ~150-byte allow-only response instead (kept for comparison).
//
//   gpua_null_server --tls-cert C --tls-key K --listen 127.0.0.1:PORT [--threads N]
//                    [--response real|tiny]
#include <boost/asio/io_context.hpp>
#include <boost/asio/signal_set.hpp>

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "admission/review.hpp"
#include "bench_inputs.hpp"
#include "server/http_server.hpp"
#include "server/serve_config.hpp"
#include "server/tls_context.hpp"

namespace {

using namespace gpua::server;

constexpr const char* kUid = "705ab4f5-6393-11e8-b7cc-42010a800002";

constexpr const char* kTinyResponse =
    R"({"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","response":)"
    R"({"uid":"705ab4f5-6393-11e8-b7cc-42010a800002","allowed":true}})";

struct Args {
  TlsFiles tls;
  ListenAddress listen{"127.0.0.1", 0};
  unsigned threads = 1;
  bool tiny = false;
};

int usage(const char* why) {
  std::fprintf(stderr,
               "gpua_null_server: %s\nusage: gpua_null_server --tls-cert FILE --tls-key FILE "
               "--listen ADDR:PORT [--threads N] [--response real|tiny]\n",
               why);
  return 2;
}

bool parseArgs(int argc, char** argv, Args& a) {
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string k = argv[i], v = argv[i + 1];
    if (k == "--tls-cert") {
      a.tls.cert = v;
    } else if (k == "--tls-key") {
      a.tls.key = v;
    } else if (k == "--listen") {
      auto l = parseListenAddress(v);
      if (!l) return false;
      a.listen = *l;
    } else if (k == "--threads") {
      a.threads = static_cast<unsigned>(std::max(1, std::atoi(v.c_str())));
    } else if (k == "--response" && (v == "real" || v == "tiny")) {
      a.tiny = v == "tiny";
    } else {
      return false;
    }
  }
  return argc % 2 == 1 && !a.tls.cert.empty() && !a.tls.key.empty();
}

// What gpu-admission answers to the load generator's typical AdmissionReview, or an error
// message (empty body) when the shipped policy does not load or the review fails.
std::string realResponse(std::string& error) {
  auto loaded = gpua::bench::loadShippedPolicy();
  if (!loaded.ok()) {
    error = "the shipped policy does not load";
    return {};
  }
  const auto request =
      gpua::bench::admissionReviewJson(gpua::bench::podJson(gpua::bench::PodSize::Typical), kUid);
  auto r = gpua::admission::review(request, gpua::admission::Endpoint::Mutate, *loaded.policy,
                                   gpua::engine::UsageSnapshot{});
  if (r.httpStatus != 200) error = "the typical review failed: " + r.body.substr(0, 200);
  return std::move(r.body);
}

}  // namespace

int main(int argc, char** argv) {
  Args args;
  if (!parseArgs(argc, argv, args)) return usage("bad arguments");
  auto tls = loadTlsContext(args.tls);
  if (!tls.context) return usage(tls.error.c_str());
  std::string error;
  const std::string response = args.tiny ? std::string(kTinyResponse) : realResponse(error);
  if (!error.empty()) return usage(error.c_str());

  boost::asio::io_context ioc(static_cast<int>(args.threads));
  HttpServer server(
      ioc, std::make_shared<TlsContextStore>(tls.context),
      [&response](const HttpRequest&) {
        HttpResponse r;
        r.body = response;
        return r;
      },
      HttpServerOptions{});
  if (auto err = server.listen(args.listen); !err.empty()) return usage(err.c_str());
  boost::asio::signal_set signals(ioc, SIGINT, SIGTERM);
  signals.async_wait([&](boost::system::error_code, int) {
    server.stop();
    ioc.stop();
  });
  server.start();
  std::printf("null server listening on %s:%u (%zu-byte response)\n", args.listen.host.c_str(),
              server.port(), response.size());
  std::fflush(stdout);
  std::vector<std::thread> pool;
  for (unsigned i = 1; i < args.threads; ++i) pool.emplace_back([&ioc] { ioc.run(); });
  ioc.run();
  for (auto& t : pool) t.join();
  return 0;
}
