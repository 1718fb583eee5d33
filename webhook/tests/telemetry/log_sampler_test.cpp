#include "telemetry/log_sampler.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

namespace gpua::telemetry {
namespace {

int keptOf(LogSampler& s, int calls) {
  int kept = 0;
  for (int i = 0; i < calls; ++i) kept += s.keep() ? 1 : 0;
  return kept;
}

TEST(LogSampler, KeepsTheExactShareSpreadEvenly) {
  LogSampler quarter(0.25);
  EXPECT_FALSE(quarter.keep());
  EXPECT_FALSE(quarter.keep());
  EXPECT_FALSE(quarter.keep());
  EXPECT_TRUE(quarter.keep()) << "every 4th";
  EXPECT_EQ(keptOf(quarter, 396), 99);

  LogSampler tenth(0.1);
  EXPECT_EQ(keptOf(tenth, 1000), 100);
  LogSampler third(1.0 / 3);
  EXPECT_EQ(keptOf(third, 300), 100);
}

TEST(LogSampler, OneKeepsAllZeroKeepsNone) {
  LogSampler all(1.0), none(0.0), defaulted;
  EXPECT_EQ(keptOf(all, 100), 100);
  EXPECT_EQ(keptOf(defaulted, 100), 100);
  EXPECT_EQ(keptOf(none, 100), 0);
  LogSampler nan(0.0 / 0.0);
  EXPECT_EQ(keptOf(nan, 10), 10) << "a NaN rate keeps everything rather than nothing";
}

TEST(LogSampler, ExactAcrossThreads) {
  LogSampler half(0.5);
  std::atomic<int> kept{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) threads.emplace_back([&] { kept += keptOf(half, 1000); });
  for (auto& t : threads) t.join();
  EXPECT_EQ(kept.load(), 2000);
}

}  // namespace
}  // namespace gpua::telemetry
