// The null server: the same HTTPS server code (gpua_server_core: Beast sessions, TLS contexts,
// timeouts, limits) with a constant AdmissionReview response and no engine. Its throughput in
// the same run is the ceiling gpu-admission is compared with.
//
//   gpua_null_server --tls-cert C --tls-key K --listen 127.0.0.1:PORT [--threads N]
#include <boost/asio/io_context.hpp>
#include <boost/asio/signal_set.hpp>

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "server/http_server.hpp"
#include "server/serve_config.hpp"
#include "server/tls_context.hpp"

namespace {

using namespace gpua::server;

constexpr const char* kResponse =
    R"({"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","response":)"
    R"({"uid":"705ab4f5-6393-11e8-b7cc-42010a800002","allowed":true}})";

struct Args {
  TlsFiles tls;
  ListenAddress listen{"127.0.0.1", 0};
  unsigned threads = 1;
};

int usage(const char* why) {
  std::fprintf(stderr,
               "gpua_null_server: %s\nusage: gpua_null_server --tls-cert FILE --tls-key FILE "
               "--listen ADDR:PORT [--threads N]\n",
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
    } else {
      return false;
    }
  }
  return argc % 2 == 1 && !a.tls.cert.empty() && !a.tls.key.empty();
}

}  // namespace

int main(int argc, char** argv) {
  Args args;
  if (!parseArgs(argc, argv, args)) return usage("bad arguments");
  auto tls = loadTlsContext(args.tls);
  if (!tls.context) return usage(tls.error.c_str());

  boost::asio::io_context ioc(static_cast<int>(args.threads));
  HttpServer server(
      ioc, std::make_shared<TlsContextStore>(tls.context),
      [](const HttpRequest&) {
        HttpResponse r;
        r.body = kResponse;
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
  std::printf("null server listening on %s:%u\n", args.listen.host.c_str(), server.port());
  std::fflush(stdout);
  std::vector<std::thread> pool;
  for (unsigned i = 1; i < args.threads; ++i) pool.emplace_back([&ioc] { ioc.run(); });
  ioc.run();
  for (auto& t : pool) t.join();
  return 0;
}
