// gpua_load: sends real AdmissionReviews to a webhook on loopback over TLS and reports
// throughput, latency percentiles, errors, and the server's CPU and peak RSS.
//
// The last line of output is machine-readable (RESULT key=value ...) for run-all.sh.
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

#include "bench_inputs.hpp"
#include "load_options.hpp"
#include "load_runner.hpp"

namespace {

using namespace gpua;

std::string readFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return in ? s.str() : std::string();
}

std::string requestBody(const load::LoadOptions& o) {
  if (!o.bodyFile.empty()) return readFile(o.bodyFile);
  auto size = bench::PodSize::Typical;
  if (o.pod == "small") size = bench::PodSize::Small;
  if (o.pod == "large") size = bench::PodSize::Large;
  return bench::admissionReviewJson(bench::podJson(size), "705ab4f5-6393-11e8-b7cc-42010a800002");
}

// What the kube-apiserver sends (net/http client): POST, JSON, keep-alive unless told.
std::string httpRequest(const load::LoadOptions& o, const std::string& body) {
  std::string r = "POST " + o.path + "?timeout=10s HTTP/1.1\r\n";
  r += "Host: " + o.host + ":" + std::to_string(o.port) + "\r\n";
  r += "User-Agent: kube-apiserver-admission\r\nAccept: application/json, */*\r\n";
  r += "Content-Type: application/json\r\n";
  r += "Content-Length: " + std::to_string(body.size()) + "\r\n";
  if (!o.keepAlive) r += "Connection: close\r\n";
  return r + "\r\n" + body;
}

double us(int64_t nanos) {
  return static_cast<double>(nanos) / 1000.0;
}

void report(const load::LoadOptions& o, load::RunResult& r, std::size_t bodyBytes) {
  const double rps = static_cast<double>(r.ok) / r.seconds;
  const double p50 = us(r.latency.quantile(0.50)), p90 = us(r.latency.quantile(0.90));
  const double p99 = us(r.latency.quantile(0.99)), mx = us(r.latency.max());
  const double serverCpu = 100.0 * r.serverCpuSeconds / r.seconds;
  const double clientCpu = 100.0 * r.clientCpuSeconds / r.seconds;
  const double resumed = r.handshakes ? 100.0 * static_cast<double>(r.resumed) / r.handshakes : 0;
  std::printf(
      "%-22s %s conns=%d rate=%s  %9.0f req/s  p50 %7.1f us  p90 %7.1f us  p99 %8.1f us  max "
      "%9.1f us  errors %llu  server cpu %5.1f%%  peak rss %5.1f MiB  client cpu %5.1f%%\n",
      o.label.c_str(), o.keepAlive ? "keep-alive" : (o.resume ? "handshake+resume" : "handshake"),
      o.connections, o.rate > 0 ? std::to_string(static_cast<long>(o.rate)).c_str() : "max", rps,
      p50, p90, p99, mx, static_cast<unsigned long long>(r.errors), serverCpu, r.serverPeakRssMiB,
      clientCpu);
  if (!r.firstError.empty()) std::printf("  first error: %s\n", r.firstError.c_str());
  std::printf(
      "RESULT label=%s keepalive=%d conns=%d rate=%.0f body_bytes=%zu requests=%llu errors=%llu "
      "rps=%.1f p50_us=%.1f p90_us=%.1f p99_us=%.1f max_us=%.1f server_cpu_pct=%.1f "
      "server_peak_rss_mib=%.1f client_cpu_pct=%.1f handshakes=%llu resumed_pct=%.1f "
      "server_cpu_us_per_req=%.1f server_rq_wait_pct=%.1f\n",
      o.label.c_str(), o.keepAlive ? 1 : 0, o.connections, o.rate, bodyBytes,
      static_cast<unsigned long long>(r.ok), static_cast<unsigned long long>(r.errors), rps, p50,
      p90, p99, mx, serverCpu, r.serverPeakRssMiB, clientCpu,
      static_cast<unsigned long long>(r.handshakes), resumed,
      r.ok ? 1e6 * r.serverCpuSeconds / static_cast<double>(r.ok) : 0.0,
      100.0 * r.serverRunqueueWaitSeconds / r.seconds);
  std::fflush(stdout);
}

}  // namespace

int main(int argc, char** argv) {
  auto parsed = load::parseLoadOptions(argc, argv);
  if (!parsed.help.empty()) {
    std::fputs(parsed.help.c_str(), stdout);
    return 0;
  }
  if (!parsed.options) {
    std::fprintf(stderr, "gpua_load: %s", parsed.error.c_str());
    return 2;
  }
  const auto& o = *parsed.options;
  const auto body = requestBody(o);
  if (body.empty()) {
    std::fprintf(stderr, "gpua_load: cannot read %s\n", o.bodyFile.c_str());
    return 2;
  }
  if (!o.dumpBody.empty()) {
    std::ofstream out(o.dumpBody, std::ios::binary);
    out << body;
    return out ? 0 : 2;
  }
  try {
    auto result = load::runLoad(o, httpRequest(o, body));
    report(o, result, body.size());
    return result.errors == 0 ? 0 : 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "gpua_load: %s\n", e.what());
    return 2;
  }
}
