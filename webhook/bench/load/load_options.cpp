#include "load_options.hpp"

#include <CLI/CLI.hpp>

#include <cstdio>
#include <cstdlib>

namespace gpua::load {

namespace {

// A number >= min (or > min when `strict`), as CLI11 checks it; the message names the flag.
CLI::Validator number(double min, bool strict = false) {
  return CLI::Validator(
      [min, strict](std::string& text) -> std::string {
        char* end = nullptr;
        const double v = std::strtod(text.c_str(), &end);
        if (!text.empty() && *end == '\0' && (strict ? v > min : v >= min)) return "";
        char bound[32];
        std::snprintf(bound, sizeof bound, "%g", min);
        return std::string("expected a number ").append(strict ? "> " : ">= ").append(bound) +
               ", got '" + text + "'";
      },
      "");
}

void declare(CLI::App& app, LoadOptions& o, bool& noKeepAlive, bool& noResume) {
  app.add_option("--port", o.port, "the webhook's port on the host (required unless --dump-body)")
      ->type_name("N")
      ->check(CLI::Range(1, 65535).description(""));
  app.add_option("--host", o.host, "loopback only: this is a benchmark, not a stress tool")
      ->check(CLI::IsMember({"127.0.0.1", "::1", "localhost"}).description(""))
      ->type_name("ADDR")
      ->capture_default_str();
  app.add_option("--path", o.path, "the request path")->type_name("PATH")->capture_default_str();
  app.add_option("--connections", o.connections, "TLS connections, one request in flight each")
      ->type_name("N")
      ->check(number(1))
      ->capture_default_str();
  app.add_option("--seconds", o.seconds, "measured time")
      ->type_name("SECONDS")
      ->check(number(0, true))
      ->capture_default_str();
  app.add_option("--warmup", o.warmup, "unmeasured time before it (connections, caches, TLS)")
      ->type_name("SECONDS")
      ->check(number(0))
      ->capture_default_str();
  app.add_option("--rate", o.rate,
                 "requests per second over all connections, each measured from its\n"
                 "scheduled send time; 0 = closed loop (as fast as each connection can)")
      ->type_name("RPS")
      ->check(number(0))
      ->capture_default_str();
  app.add_flag("--no-keepalive", noKeepAlive, "a new connection (TLS handshake) per request");
  app.add_flag("--no-resume", noResume,
               "with --no-keepalive: full handshakes, no session resumption");
  app.add_option("--body", o.bodyFile, "an AdmissionReview to send (default: a generated one)")
      ->type_name("FILE");
  app.add_option("--pod", o.pod, "the generated pod when no --body is given")
      ->check(CLI::IsMember({"small", "typical", "large"}).description(""))
      ->type_name("small|typical|large")
      ->capture_default_str();
  app.add_option("--server-pid", o.serverPid, "report this process's CPU use and peak RSS")
      ->check(number(0))
      ->type_name("PID");
  app.add_option("--label", o.label, "the run's name in the report")
      ->type_name("NAME")
      ->capture_default_str();
  app.add_option("--dump-body", o.dumpBody,
                 "write the AdmissionReview this run would send to FILE and exit\n"
                 "(the body the other load generators send)")
      ->type_name("FILE");
}

}  // namespace

OptionsResult parseLoadOptions(int argc, const char* const* argv) {
  CLI::App app(
      "Sends real AdmissionReviews to a webhook on loopback over TLS and reports throughput,\n"
      "latency percentiles, errors, and the server's CPU and peak RSS. The last line is\n"
      "machine-readable (RESULT key=value ...).",
      "gpua_load");
  app.option_defaults()->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
  LoadOptions o;
  bool noKeepAlive = false, noResume = false;
  declare(app, o, noKeepAlive, noResume);
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp&) {
    return {std::nullopt, app.help(), {}};
  } catch (const CLI::ParseError& e) {
    return {std::nullopt, {}, std::string(e.what()) + "\n\n" + app.help()};
  }
  o.keepAlive = !noKeepAlive;
  o.resume = !noResume;
  if (o.port == 0 && o.dumpBody.empty())
    return {std::nullopt, {}, "--port is required\n\n" + app.help()};
  return {o, {}, {}};
}

}  // namespace gpua::load
