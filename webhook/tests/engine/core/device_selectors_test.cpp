#include "engine/core/device_selectors.hpp"

#include <gtest/gtest.h>

namespace gpua::engine {
namespace {

TEST(PinnedAttributeValues, EqualityAndMembershipInEitherForm) {
  const std::string attr = "gpu.nvidia.com/profile";
  EXPECT_EQ(pinnedAttributeValues("device.attributes['gpu.nvidia.com'].profile == '1g.10gb'", attr),
            std::vector<std::string>{"1g.10gb"});
  EXPECT_EQ(
      pinnedAttributeValues(
          R"(device.driver == "gpu.nvidia.com" && device.attributes["gpu.nvidia.com"]["profile"] in ["1g.10gb", '2g.20gb'])",
          attr),
      (std::vector<std::string>{"1g.10gb", "2g.20gb"}));
  // Forms that cannot be judged exactly are unknown, never guessed.
  EXPECT_TRUE(pinnedAttributeValues(
                  "device.attributes['gpu.nvidia.com'].profile == '1g.10gb' || true", attr)
                  .empty());
  EXPECT_TRUE(
      pinnedAttributeValues("!(device.attributes['gpu.nvidia.com'].profile == 'x')", attr).empty());
  EXPECT_TRUE(pinnedAttributeValues("device.attributes['gpu.nvidia.com'].profileName == 'x'", attr)
                  .empty());
  EXPECT_TRUE(
      pinnedAttributeValues("device.attributes['other.com'].profile == '1g.10gb'", attr).empty());
  EXPECT_TRUE(
      pinnedAttributeValues("device.attributes['gpu.nvidia.com'].profile == '1g", attr).empty());
}

const DeviceAttributes kMig = {{"gpu.nvidia.com/type", "mig"},
                               {"gpu.nvidia.com/profile", "1g.10gb"}};

TEST(SelectorHolds, NvidiasDeviceClassesSelectTheirDevices) {
  const std::string gpu =
      "device.driver == 'gpu.nvidia.com' && device.attributes['gpu.nvidia.com'].type == 'gpu'";
  const std::string mig =
      "device.driver == 'gpu.nvidia.com' && device.attributes['gpu.nvidia.com'].type == 'mig'";
  EXPECT_EQ(selectorHolds(mig, "gpu.nvidia.com", kMig), true);
  EXPECT_EQ(selectorHolds(gpu, "gpu.nvidia.com", kMig), false);
  EXPECT_EQ(selectorHolds(mig, "other.example.com", kMig), false);
  EXPECT_EQ(
      selectorHolds(R"(device.attributes["gpu.nvidia.com"]["profile"] in ['1g.10gb', '2g.20gb'])",
                    "gpu.nvidia.com", kMig),
      true);
  // A missing attribute fails the comparison, as CEL's error makes the apiserver skip the device.
  EXPECT_EQ(
      selectorHolds("device.attributes['gpu.nvidia.com'].brand == 'Tesla'", "gpu.nvidia.com", kMig),
      false);
}

TEST(SelectorHolds, OtherFormsAreUnknown) {
  for (const char* expr :
       {"device.attributes['gpu.nvidia.com'].type == 'mig' || true",
        "!(device.driver == 'gpu.nvidia.com')",
        "device.capacity['gpu.nvidia.com'].memory.compareTo(quantity('10Gi')) >= 0",
        "device.attributes['gpu.nvidia.com'].index == 3", "device.driver != 'x'"})
    EXPECT_EQ(selectorHolds(expr, "gpu.nvidia.com", kMig), std::nullopt) << expr;
  // Selectors are ANDed: one false makes the rest irrelevant, one unknown makes it unknown.
  EXPECT_EQ(selectorsHold({"device.driver == 'x'", "true || false"}, "gpu.nvidia.com", kMig),
            false);
  EXPECT_EQ(
      selectorsHold({"device.driver == 'gpu.nvidia.com'", "true || false"}, "gpu.nvidia.com", kMig),
      std::nullopt);
  EXPECT_EQ(selectorsHold({}, "gpu.nvidia.com", kMig), true);
}

}  // namespace
}  // namespace gpua::engine
