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
#include <CLI/CLI.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/signal_set.hpp>

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <optional>
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

int fail(const char* why) {
  std::fprintf(stderr, "gpua_null_server: %s\n", why);
  return 2;
}

// Returns an exit status when parsing ends the program (--help, a bad command line).
std::optional<int> parseArgs(int argc, char** argv, Args& a) {
  CLI::App app(
      "The HTTPS server of gpu-admission with a constant AdmissionReview response: the ceiling\n"
      "gpu-admission's throughput is compared with in the same run.",
      "gpua_null_server");
  app.option_defaults()->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
  std::string listen = "127.0.0.1:0", response = "real";
  app.add_option("--tls-cert", a.tls.cert, "the server certificate (PEM)")
      ->required()
      ->type_name("FILE");
  app.add_option("--tls-key", a.tls.key, "its private key (PEM)")->required()->type_name("FILE");
  app.add_option("--listen", listen, "where to listen (port 0: any free one)")
      ->type_name("ADDR:PORT")
      ->check(CLI::Validator(
          [](std::string& text) -> std::string {
            return parseListenAddress(text) ? "" : "'" + text + "' is not ADDR:PORT";
          },
          ""))
      ->capture_default_str();
  app.add_option("--threads", a.threads, "I/O threads")
      ->check(CLI::Range(1u, 1024u).description(""))
      ->capture_default_str();
  app.add_option("--response", response,
                 "real: the webhook's answer to the bench's typical pod (same bytes as\n"
                 "gpu-admission sends); tiny: a ~150-byte allow-only answer")
      ->check(CLI::IsMember({"real", "tiny"}).description(""))
      ->type_name("real|tiny")
      ->capture_default_str();
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp&) {
    std::fputs(app.help().c_str(), stdout);
    return 0;
  } catch (const CLI::ParseError& e) {
    std::fprintf(stderr, "gpua_null_server: %s\n\n%s", e.what(), app.help().c_str());
    return 2;
  }
  a.listen = *parseListenAddress(listen);
  a.tiny = response == "tiny";
  return std::nullopt;
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
  if (auto status = parseArgs(argc, argv, args)) return *status;
  auto tls = loadTlsContext(args.tls);
  if (!tls.context) return fail(tls.error.c_str());
  std::string error;
  const std::string response = args.tiny ? std::string(kTinyResponse) : realResponse(error);
  if (!error.empty()) return fail(error.c_str());

  boost::asio::io_context ioc(static_cast<int>(args.threads));
  HttpServer server(
      ioc, std::make_shared<TlsContextStore>(tls.context),
      [&response](const HttpRequest&) {
        HttpResponse r;
        r.body = response;
        return r;
      },
      HttpServerOptions{});
  if (auto err = server.listen(args.listen); !err.empty()) return fail(err.c_str());
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
