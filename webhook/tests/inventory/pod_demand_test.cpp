#include "inventory/pod_demand.hpp"

#include <gtest/gtest.h>

#include "support/cluster_fixtures.hpp"

namespace gpua::inventory {
namespace {

using testing::parse;

engine::ResourceUnits demandOf(const std::string& spec) {
  return podNodeDemand(parse(R"({"metadata":{"name":"p"},"spec":)" + spec + "}"),
                       NodeResourceFilter{});
}

std::string container(const std::string& name, int gpus, const std::string& extra = "") {
  return R"({"name":")" + name + R"(","resources":{"limits":{"nvidia.com/gpu":")" +
         std::to_string(gpus) + R"("}})" + extra + "}";
}

TEST(PodDemand, SumsAppContainers) {
  EXPECT_EQ(demandOf(R"({"containers":[)" + container("a", 2) + "," + container("b", 3) + "]}"),
            (engine::ResourceUnits{{"nvidia.com/gpu", 5}}));
}

TEST(PodDemand, LargestInitContainerWinsWhenLarger) {
  const auto spec = R"({"initContainers":[)" + container("warm", 4) + "," + container("dl", 1) +
                    R"(],"containers":[)" + container("a", 2) + "]}";
  EXPECT_EQ(demandOf(spec), (engine::ResourceUnits{{"nvidia.com/gpu", 4}}));
  const auto smaller = R"({"initContainers":[)" + container("i", 1) + R"(],"containers":[)" +
                       container("a", 2) + "]}";
  EXPECT_EQ(demandOf(smaller), (engine::ResourceUnits{{"nvidia.com/gpu", 2}}));
}

TEST(PodDemand, NativeSidecarsAddToContainersAndLaterInitSteps) {
  const std::string always = R"(,"restartPolicy":"Always")";
  // sidecar 1 runs beside init "big" (1 + 3 = 4) and beside the app containers (1 + 2 = 3).
  const auto spec = R"({"initContainers":[)" + container("side", 1, always) + "," +
                    container("big", 3) + R"(],"containers":[)" + container("a", 2) + "]}";
  EXPECT_EQ(demandOf(spec), (engine::ResourceUnits{{"nvidia.com/gpu", 4}}));
  // An init container that ran before the sidecar started does not overlap it.
  const auto before = R"({"initContainers":[)" + container("big", 3) + "," +
                      container("side", 1, always) + R"(],"containers":[)" + container("a", 2) +
                      "]}";
  EXPECT_EQ(demandOf(before), (engine::ResourceUnits{{"nvidia.com/gpu", 3}}));
}

TEST(PodDemand, RequestsWinOverLimitsPerResourceAndOthersAreDropped) {
  const auto spec = R"({"containers":[{"name":"a","resources":{
      "requests":{"nvidia.com/mig-1g.10gb":"2","cpu":"4"},
      "limits":{"nvidia.com/mig-1g.10gb":"3","nvidia.com/gpu":"1","memory":"1Gi"}}},
      {"name":"b","resources":{"limits":{"nvidia.com/gpu":"bad"}}},{"name":"c"}]})";
  EXPECT_EQ(demandOf(spec),
            (engine::ResourceUnits{{"nvidia.com/gpu", 1}, {"nvidia.com/mig-1g.10gb", 2}}));
  EXPECT_TRUE(demandOf(R"({"containers":"x"})").empty());
  EXPECT_TRUE(demandOf(R"(3)").empty());
}

}  // namespace
}  // namespace gpua::inventory
