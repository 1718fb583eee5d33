#include "server/process_resources.hpp"

#include <sched.h>
#include <sys/resource.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <vector>

namespace gpua::server {

namespace {

std::optional<std::string> firstLine(const std::filesystem::path& file) {
  std::ifstream in(file);
  std::string line;
  if (!in || !std::getline(in, line)) return std::nullopt;
  return line;
}

std::optional<uint64_t> toUnsigned(const std::string& text) {
  if (text.empty() || text.find_first_not_of("0123456789") != std::string::npos)
    return std::nullopt;
  try {
    return std::stoull(text);
  } catch (const std::exception&) {
    return std::nullopt;  // out of range: as good as unlimited
  }
}

// The process's cgroup directory and its ancestors up to the mount root, innermost first.
std::vector<std::filesystem::path> cgroupChain(const CgroupFiles& c) {
  std::vector<std::filesystem::path> out;
  std::filesystem::path p =
      std::filesystem::path(c.root) / std::filesystem::path(c.self).relative_path();
  const std::filesystem::path root(c.root);
  for (;;) {
    out.push_back(p);
    if (p == root || !p.has_parent_path() || p.parent_path() == p) break;
    p = p.parent_path();
    if (p.string().size() < root.string().size()) break;
  }
  return out;
}

// cgroup v2 "cpu.max": "max 100000" (no quota) or "QUOTA PERIOD".
std::optional<double> parseCpuMax(const std::string& line) {
  std::istringstream in(line);
  std::string quota, period;
  in >> quota >> period;
  const auto q = toUnsigned(quota), p = toUnsigned(period);
  if (!q || !p || *p == 0) return std::nullopt;
  return static_cast<double>(*q) / static_cast<double>(*p);
}

std::optional<double> cgroupV1CpuLimit(const std::string& root) {
  for (const char* dir : {"cpu", "cpu,cpuacct", "cpuacct,cpu"}) {
    const auto base = std::filesystem::path(root) / dir;
    const auto quota = firstLine(base / "cpu.cfs_quota_us");
    const auto period = firstLine(base / "cpu.cfs_period_us");
    if (!quota || !period) continue;
    const auto q = toUnsigned(*quota), p = toUnsigned(*period);  // "-1": no quota
    if (!q || !p || *p == 0) return std::nullopt;
    return static_cast<double>(*q) / static_cast<double>(*p);
  }
  return std::nullopt;
}

template <class T>
void keepLowest(std::optional<T>& lowest, std::optional<T> v) {
  if (v && (!lowest || *v < *lowest)) lowest = v;
}

}  // namespace

CgroupFiles processCgroup() {
  CgroupFiles c;
  std::ifstream in("/proc/self/cgroup");
  for (std::string line; std::getline(in, line);)
    if (line.rfind("0::", 0) == 0) c.self = line.substr(3);
  return c;
}

std::optional<double> cgroupCpuLimit(const CgroupFiles& cgroup) {
  std::optional<double> lowest;
  for (const auto& dir : cgroupChain(cgroup))
    if (const auto line = firstLine(dir / "cpu.max")) keepLowest(lowest, parseCpuMax(*line));
  if (!lowest) lowest = cgroupV1CpuLimit(cgroup.root);
  return lowest;
}

std::optional<uint64_t> cgroupMemoryLimit(const CgroupFiles& cgroup) {
  std::optional<uint64_t> lowest;
  for (const auto& dir : cgroupChain(cgroup))
    if (const auto line = firstLine(dir / "memory.max")) keepLowest(lowest, toUnsigned(*line));
  if (!lowest) {
    // v1 reports "unlimited" as a huge page-rounded number.
    const auto v1 = firstLine(std::filesystem::path(cgroup.root) / "memory/memory.limit_in_bytes");
    if (const auto n = v1 ? toUnsigned(*v1) : std::nullopt; n && *n < (uint64_t{1} << 60))
      lowest = n;
  }
  return lowest;
}

unsigned affinityCpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) != 0) return 1;
  return std::max(1, CPU_COUNT(&set));
}

unsigned defaultThreads(unsigned affinity, std::optional<double> cpuLimit) {
  unsigned n = std::max(1u, affinity);
  if (cpuLimit && *cpuLimit > 0)
    n = std::min(n, static_cast<unsigned>(std::max(1.0, std::ceil(*cpuLimit - 1e-9))));
  return n;
}

uint64_t raiseOpenFileLimit() {
  rlimit rl{};
  if (getrlimit(RLIMIT_NOFILE, &rl) != 0) return 1024;
  if (rl.rlim_cur < rl.rlim_max) {
    rlimit raised = rl;
    raised.rlim_cur = rl.rlim_max;
    if (setrlimit(RLIMIT_NOFILE, &raised) == 0) rl = raised;
  }
  return rl.rlim_cur == RLIM_INFINITY ? uint64_t{1} << 20 : static_cast<uint64_t>(rl.rlim_cur);
}

ResourceLimits limitsFor(std::optional<uint64_t> memoryLimit, uint64_t openFileLimit) {
  const uint64_t memory = memoryLimit.value_or(kAssumedMemoryLimit);
  constexpr uint64_t kReservedFiles = 64;  // listener, logs, policy files, the watch
  uint64_t connections = memory / 4 / kConnectionBytes;
  if (openFileLimit > kReservedFiles * 2)
    connections = std::min(connections, openFileLimit - kReservedFiles);
  connections = std::clamp<uint64_t>(connections, 16, 100'000);
  ResourceLimits out;
  out.maxConnections = static_cast<std::size_t>(connections);
  // One source (one apiserver, one attacker) may hold at most half, so the others and the
  // kubelet's probes still get in.
  out.maxConnectionsPerSource = std::max<std::size_t>(1, out.maxConnections / 2);
  out.maxBufferedBytes = static_cast<std::size_t>(std::max<uint64_t>(memory / 4, 16u << 20));
  return out;
}

}  // namespace gpua::server
