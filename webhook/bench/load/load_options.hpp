// Settings of gpua_load, the load generator of the performance harness.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>

namespace gpua::load {

struct LoadOptions {
  std::string host = "127.0.0.1";  // loopback only: this is a benchmark, not a stress tool
  uint16_t port = 0;
  std::string path = "/mutate";
  int connections = 8;
  double seconds = 10;  // measured time
  double warmup = 1;    // unmeasured time before it (connections, caches, TLS sessions)
  // Requests per second over all connections, each measured from its scheduled send time
  // (no coordinated omission). 0 = closed loop: every connection sends as fast as it can.
  double rate = 0;
  bool keepAlive = true;
  bool resume = true;           // without keep-alive: resume TLS sessions (tickets)
  std::string bodyFile;         // an AdmissionReview to send; default: a generated one
  std::string pod = "typical";  // small | typical | large, when no body file is given
  pid_t serverPid = 0;          // report this process's CPU use and peak RSS
  std::string label = "run";
  // Write the AdmissionReview this run would send to this file and exit: the body other load
  // generators (h2load) send, so every generator sends the same bytes.
  std::string dumpBody;
};

// One of: the options to run with; `help` (--help was given); or `error`, a bad command line
// naming the flag.
struct OptionsResult {
  std::optional<LoadOptions> options;
  std::string help;
  std::string error;
};

// Parses argv[1..argc) with CLI11.
OptionsResult parseLoadOptions(int argc, const char* const* argv);

}  // namespace gpua::load
