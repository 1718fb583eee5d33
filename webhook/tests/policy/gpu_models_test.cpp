#include "policy/gpu_models.hpp"

#include <gtest/gtest.h>

#include <set>

namespace gpua::policy {
namespace {

using Profiles = std::vector<std::string>;

TEST(GpuModels, MigProfilesMatchNvidiaTable) {
  const std::vector<std::pair<std::string, Profiles>> expected{
      {"A100-40GB", {"1g.5gb", "1g.10gb", "2g.10gb", "3g.20gb", "4g.20gb", "7g.40gb"}},
      {"A100-80GB", {"1g.10gb", "1g.20gb", "2g.20gb", "3g.40gb", "4g.40gb", "7g.80gb"}},
      {"H100-80GB", {"1g.10gb", "1g.20gb", "2g.20gb", "3g.40gb", "4g.40gb", "7g.80gb"}},
      {"H100-NVL", {"1g.12gb", "1g.24gb", "2g.24gb", "3g.47gb", "4g.47gb", "7g.94gb"}},
      {"H200", {"1g.18gb", "1g.35gb", "2g.35gb", "3g.71gb", "4g.71gb", "7g.141gb"}},
      {"A30", {"1g.6gb", "2g.12gb", "4g.24gb"}},
  };
  for (const auto& [key, profiles] : expected) {
    const GpuModel* m = findGpuModel(key);
    ASSERT_NE(m, nullptr) << key;
    EXPECT_EQ(m->migProfiles, profiles) << key;
    EXPECT_TRUE(m->migCapable()) << key;
    EXPECT_EQ(m->computeSlices, key == "A30" ? 4 : 7) << key;
  }
}

TEST(GpuModels, MemoryMatchesTheModelName) {
  EXPECT_EQ(findGpuModel("A100-40GB")->memoryGb, 40);
  EXPECT_EQ(findGpuModel("H100-NVL")->memoryGb, 94);
  EXPECT_EQ(findGpuModel("H200")->memoryGb, 141);
  EXPECT_EQ(findGpuModel("A30")->memoryGb, 24);
}

TEST(GpuModels, ModelsWithoutMigHaveNoProfiles) {
  for (const char* key : {"L4", "L40S", "T4", "A10", "V100", "B200"}) {
    const GpuModel* m = findGpuModel(key);
    ASSERT_NE(m, nullptr) << key;
    EXPECT_FALSE(m->migCapable()) << key;
    EXPECT_EQ(m->computeSlices, 0) << key;
    EXPECT_TRUE(m->migProfiles.empty()) << key;
  }
}

TEST(GpuModels, KeysAreUniqueAndLookupIsExact) {
  std::set<std::string> keys;
  for (const auto& m : gpuModels()) {
    EXPECT_TRUE(keys.insert(m.key).second) << m.key;
    EXPECT_FALSE(m.productLabel.empty()) << m.key;
    EXPECT_EQ(findGpuModel(m.key), &m);
  }
  EXPECT_EQ(findGpuModel("a100-80gb"), nullptr);
  EXPECT_EQ(findGpuModel(""), nullptr);
  EXPECT_EQ(findGpuModel("H100"), nullptr);
}

TEST(GpuModels, EveryProfileFitsItsModel) {
  for (const auto& m : gpuModels())
    for (const auto& p : m.migProfiles) {
      auto slices = migProfileSlices(p);
      ASSERT_TRUE(slices.has_value()) << p;
      EXPECT_LE(*slices, m.computeSlices) << m.key << " " << p;
    }
}

TEST(MigProfileSlices, ParsesTheComputeSlices) {
  EXPECT_EQ(migProfileSlices("3g.40gb"), 3);
  EXPECT_EQ(migProfileSlices("1g.5gb"), 1);
  EXPECT_EQ(migProfileSlices("7g.141gb"), 7);
}

TEST(MigProfileSlices, RejectsMalformedNames) {
  for (const char* bad :
       {"", "3g", "3g.", "3g.40", "3g.40gbx", "g.40gb", "0g.10gb", "3g.0gb", "-3g.40gb", "+3g.40gb",
        "3G.40GB", "3g.+40gb", "mig-3g.40gb", "99999999999g.1gb"})
    EXPECT_FALSE(migProfileSlices(bad).has_value()) << bad;
}

}  // namespace
}  // namespace gpua::policy
