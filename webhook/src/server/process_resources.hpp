// What the process may use, as opposed to what the node has: the CPUs of its affinity mask and
// cgroup CPU quota, its cgroup memory limit and its open-file limit. `serve` sizes its worker
// threads, connection limit and request-buffer budget from these, so a pod limited to 2 CPUs
// and 256Mi on a 96-core node gets 2 threads and limits that fit in 256Mi.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

namespace gpua::server {

// Where the process's cgroup files are: the cgroup v2 unified mount (or the v1 mount root with
// its "cpu" and "memory" controllers below) and the process's own cgroup path in it.
struct CgroupFiles {
  std::string root = "/sys/fs/cgroup";
  std::string self;  // v2 path from /proc/self/cgroup ("0::/kubepods/pod1/c1"), "" = root
};

// The cgroup of this process, from /proc/self/cgroup.
CgroupFiles processCgroup();

// CPUs allowed by the CPU quota (cgroup v2 cpu.max, or v1 cpu.cfs_quota_us/cpu.cfs_period_us),
// the lowest along the path to the root; nullopt when there is no quota.
std::optional<double> cgroupCpuLimit(const CgroupFiles& cgroup);

// Bytes allowed by the memory limit (v2 memory.max, v1 memory.limit_in_bytes); nullopt when
// unlimited.
std::optional<uint64_t> cgroupMemoryLimit(const CgroupFiles& cgroup);

// CPUs in the affinity mask (sched_getaffinity), at least 1.
unsigned affinityCpus();

// The default number of worker threads: the affinity CPUs, capped by the quota rounded up.
unsigned defaultThreads(unsigned affinity, std::optional<double> cpuLimit);

// Raises the soft RLIMIT_NOFILE to the hard limit (a server at the soft limit of 1024 fails
// accept() with EMFILE long before memory runs out). Returns the soft limit now in force.
uint64_t raiseOpenFileLimit();

// Connection and buffer limits sized to the memory the process may use.
struct ResourceLimits {
  std::size_t maxConnections = 0;
  std::size_t maxConnectionsPerSource = 0;
  std::size_t maxBufferedBytes = 0;
};

// A quarter of the memory goes to open connections (kConnectionBytes each), a quarter to
// request bodies being read; the rest is the process itself, policies and usage snapshots.
// Without a memory limit the Deployment's 256Mi is assumed. Connections also stay below the
// open-file limit, keeping files for the listener, logs and the watch.
ResourceLimits limitsFor(std::optional<uint64_t> memoryLimit, uint64_t openFileLimit);

// What one open TLS connection costs, measured (docs/reliability.md): Asio's two 17 KiB TLS
// record buffers, OpenSSL's SSL object, the read buffer and the session.
inline constexpr std::size_t kConnectionBytes = 96u << 10;
inline constexpr uint64_t kAssumedMemoryLimit = 256u << 20;

}  // namespace gpua::server
