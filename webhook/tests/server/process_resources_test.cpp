// Threads and limits follow what the process may use (affinity mask,
// cgroup v1/v2 CPU quota and memory limit), not what the node has. Cgroup files are laid out
// in a temporary directory.
#include "server/process_resources.hpp"

#include <gtest/gtest.h>

#include <sys/resource.h>

#include "support/temp_dir.hpp"

namespace gpua::server {
namespace {

using testing::TempDir;
using testing::writeFile;

TEST(ProcessResources, CgroupV2QuotaIsTheLowestAlongThePath) {
  TempDir dir;
  writeFile(dir.path() / "cpu.max", "max 100000\n");
  writeFile(dir.path() / "kubepods/cpu.max", "400000 100000\n");
  writeFile(dir.path() / "kubepods/pod1/c1/cpu.max", "150000 100000\n");
  const CgroupFiles c{dir.path().string(), "/kubepods/pod1/c1"};
  ASSERT_TRUE(cgroupCpuLimit(c));
  EXPECT_DOUBLE_EQ(*cgroupCpuLimit(c), 1.5);
  EXPECT_EQ(defaultThreads(96, cgroupCpuLimit(c)), 2u) << "1.5 CPUs round up to 2 threads";
  EXPECT_EQ(defaultThreads(1, cgroupCpuLimit(c)), 1u) << "the affinity mask caps too";
}

TEST(ProcessResources, NoQuotaMeansTheAffinityMask) {
  TempDir dir;
  writeFile(dir.path() / "cpu.max", "max 100000\n");
  const CgroupFiles c{dir.path().string(), ""};
  EXPECT_FALSE(cgroupCpuLimit(c));
  EXPECT_EQ(defaultThreads(3, cgroupCpuLimit(c)), 3u);
  EXPECT_GE(affinityCpus(), 1u);
}

TEST(ProcessResources, CgroupV1QuotaAndMemory) {
  TempDir dir;
  writeFile(dir.path() / "cpu,cpuacct/cpu.cfs_quota_us", "50000\n");
  writeFile(dir.path() / "cpu,cpuacct/cpu.cfs_period_us", "100000\n");
  writeFile(dir.path() / "memory/memory.limit_in_bytes", "268435456\n");
  const CgroupFiles c{dir.path().string(), ""};
  ASSERT_TRUE(cgroupCpuLimit(c));
  EXPECT_DOUBLE_EQ(*cgroupCpuLimit(c), 0.5);
  EXPECT_EQ(defaultThreads(8, cgroupCpuLimit(c)), 1u);
  EXPECT_EQ(cgroupMemoryLimit(c), uint64_t{256} << 20);

  writeFile(dir.path() / "cpu,cpuacct/cpu.cfs_quota_us", "-1\n");
  writeFile(dir.path() / "memory/memory.limit_in_bytes", "9223372036854771712\n");
  EXPECT_FALSE(cgroupCpuLimit(c)) << "-1: no quota";
  EXPECT_FALSE(cgroupMemoryLimit(c)) << "v1's 'unlimited' is a huge number";
}

TEST(ProcessResources, CgroupV2MemoryLimit) {
  TempDir dir;
  writeFile(dir.path() / "memory.max", "max\n");
  writeFile(dir.path() / "pod/memory.max", "134217728\n");
  EXPECT_EQ(cgroupMemoryLimit({dir.path().string(), "/pod"}), uint64_t{128} << 20);
  EXPECT_FALSE(cgroupMemoryLimit({dir.path().string(), ""}));
}

TEST(ProcessResources, LimitsFitTheMemoryLimit) {
  const auto l = limitsFor(uint64_t{256} << 20, 1u << 20);
  // A quarter of the memory for connections, a quarter for bodies being read.
  EXPECT_LE(l.maxConnections * kConnectionBytes, (std::size_t{256} << 20) / 4);
  EXPECT_GE(l.maxConnections, 500u) << "room for the apiservers' keep-alive pools";
  EXPECT_EQ(l.maxBufferedBytes, std::size_t{64} << 20);
  EXPECT_EQ(l.maxConnectionsPerSource, l.maxConnections / 2);
  EXPECT_EQ(limitsFor(std::nullopt, 1u << 20).maxConnections, l.maxConnections)
      << "no limit: the Deployment's 256Mi is assumed";
  EXPECT_LE(limitsFor(uint64_t{4} << 30, 1024).maxConnections, 1024u - 64)
      << "stays below the open-file limit";
}

TEST(ProcessResources, RaisesTheSoftFileLimitToTheHardLimit) {
  rlimit before{};
  ASSERT_EQ(getrlimit(RLIMIT_NOFILE, &before), 0);
  rlimit lowered = before;
  lowered.rlim_cur = std::min<rlim_t>(before.rlim_max, 256);
  ASSERT_EQ(setrlimit(RLIMIT_NOFILE, &lowered), 0);
  const auto now = raiseOpenFileLimit();
  rlimit after{};
  ASSERT_EQ(getrlimit(RLIMIT_NOFILE, &after), 0);
  EXPECT_EQ(after.rlim_cur, before.rlim_max);
  EXPECT_EQ(now, after.rlim_cur == RLIM_INFINITY ? uint64_t{1} << 20 : after.rlim_cur);
  setrlimit(RLIMIT_NOFILE, &before);
}

}  // namespace
}  // namespace gpua::server
