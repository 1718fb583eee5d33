#include "proc_stats.hpp"

#include <sys/resource.h>
#include <unistd.h>

#include <fstream>
#include <sstream>
#include <string>

namespace gpua::load {

namespace {

// Fields 14 and 15 of /proc/PID/stat, after the parenthesised command name (which may hold
// spaces).
std::optional<double> cpuSecondsOf(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const auto close = text.rfind(')');
  if (close == std::string::npos) return std::nullopt;
  std::istringstream fields(text.substr(close + 2));
  std::string field;
  double utime = 0, stime = 0;
  for (int i = 3; i <= 15 && fields >> field; ++i) {
    if (i == 14) utime = std::stod(field);
    if (i == 15) stime = std::stod(field);
  }
  return (utime + stime) / static_cast<double>(sysconf(_SC_CLK_TCK));
}

double statusKiB(const std::string& status, const std::string& key) {
  const auto at = status.find(key + ":");
  if (at == std::string::npos) return 0;
  return std::stod(status.substr(at + key.size() + 1));
}

// Second field of /proc/PID/schedstat: nanoseconds spent waiting on a run queue.
double runqueueWaitOf(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/schedstat");
  double onCpu = 0, waiting = 0;
  in >> onCpu >> waiting;
  return in ? waiting / 1e9 : 0;
}

}  // namespace

std::optional<ProcStats> readProcStats(pid_t pid) {
  auto cpu = cpuSecondsOf(pid);
  if (!cpu) return std::nullopt;
  std::ifstream in("/proc/" + std::to_string(pid) + "/status");
  std::string status((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  return ProcStats{*cpu, statusKiB(status, "VmHWM") / 1024, statusKiB(status, "VmRSS") / 1024,
                   runqueueWaitOf(pid)};
}

double selfCpuSeconds() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  auto secs = [](const timeval& t) { return static_cast<double>(t.tv_sec) + t.tv_usec / 1e6; };
  return secs(u.ru_utime) + secs(u.ru_stime);
}

}  // namespace gpua::load
