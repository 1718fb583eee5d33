// The load loop: N TLS connections on one thread, each with one request in flight (HTTP/1.1
// has no useful pipelining), sending a fixed request for a bounded time.
#pragma once

#include <cstdint>
#include <string>

#include "latency_record.hpp"
#include "load_options.hpp"

namespace gpua::load {

struct RunResult {
  uint64_t ok = 0;      // 200 responses carrying an AdmissionReview verdict, measured window
  uint64_t errors = 0;  // anything else in the measured window (status, I/O, timeouts)
  std::string firstError;
  LatencyRecord latency;  // of ok requests, from the scheduled send time
  double seconds = 0;     // the measured window
  uint64_t handshakes = 0, resumed = 0;
  double clientCpuSeconds = 0;
  double serverCpuSeconds = 0;  // 0 when no --server-pid
  double serverPeakRssMiB = 0;
  double serverRunqueueWaitSeconds = 0;  // the server waited for a CPU this long
};

// `request` is the full HTTP request (headers and body) sent on every exchange.
RunResult runLoad(const LoadOptions& options, const std::string& request);

}  // namespace gpua::load
