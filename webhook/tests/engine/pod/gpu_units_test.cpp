#include <gtest/gtest.h>

#include <map>
#include <random>
#include <string>
#include <vector>

#include "engine/pod/gpu_request.hpp"

namespace gpua::engine {
namespace {

// GpuUnits replaced a std::map on the request path: it must hold the same entries in the same
// (name) order whatever the insertion order, in place and past its in-place room.
TEST(GpuUnits, HoldsWhatAMapHoldsInTheSameOrder) {
  const std::vector<std::string> names = {"nvidia.com/gpu",
                                          "nvidia.com/mig-1g.10gb",
                                          "amd.com/gpu",
                                          "nvidia.com/gpu.shared",
                                          "nvidia.com/mig-3g.40gb",
                                          "example.com/a",
                                          "nvidia.com/mig-1g.10gb+me",
                                          "z"};
  std::mt19937 rng(3);
  for (int round = 0; round < 200; ++round) {
    GpuUnits units;
    std::map<std::string, int64_t, std::less<>> reference;
    const int adds = 1 + static_cast<int>(rng() % 20);
    for (int i = 0; i < adds; ++i) {
      const std::string& name = names[rng() % names.size()];
      const int64_t n = static_cast<int64_t>(rng() % 9);
      units[name] += n;
      reference[name] += n;
    }
    ASSERT_EQ(units.size(), reference.size()) << round;
    auto it = reference.begin();
    for (const auto& [resource, n] : units) {
      EXPECT_EQ(resource, it->first) << round;
      EXPECT_EQ(n, it->second) << round;
      ++it;
    }
    for (const auto& [resource, n] : reference) {
      const auto* found = units.find(resource);
      ASSERT_NE(found, nullptr) << resource;
      EXPECT_EQ(found->second, n);
    }
    EXPECT_EQ(units.find("not-there"), nullptr);
  }
}

TEST(GpuUnits, EmptyHasNothing) {
  const GpuUnits units;
  EXPECT_TRUE(units.empty());
  EXPECT_EQ(units.begin(), units.end());
}

}  // namespace
}  // namespace gpua::engine
