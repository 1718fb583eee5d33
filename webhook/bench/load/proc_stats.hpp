// CPU time and peak resident memory of a process, read from /proc: how much of the machine the
// server used during a run, and the most memory it ever held.
#pragma once

#include <sys/types.h>
#include <optional>

namespace gpua::load {

struct ProcStats {
  double cpuSeconds = 0;  // user + system since the process started
  double peakRssMiB = 0;  // VmHWM
  double rssMiB = 0;      // VmRSS
  // Time the main thread was runnable but waiting for a CPU (/proc/PID/schedstat): on a
  // shared machine, the part of the latency that is other processes', not ours.
  double runqueueWaitSeconds = 0;
};

std::optional<ProcStats> readProcStats(pid_t pid);

// This process's own CPU seconds (user + system).
double selfCpuSeconds();

}  // namespace gpua::load
