// runtimeClassName from the pool and activeDeadlineSeconds from the class's maxRunSeconds.
#include <gtest/gtest.h>

#include "test_support.hpp"

namespace gpua::engine {
namespace {

using namespace testing;

TEST(MutateRuntime, SetsRuntimeClassWhenAbsentOnly) {
  auto p = makePolicy();
  p.pools[0].runtimeClassName = "nvidia";
  const Applied run = decideAndApply(gpuPod(kTraining, kOneGpu, R"("overhead":{"cpu":"10m"})"), p);
  EXPECT_EQ(at(run.patched, "/spec/runtimeClassName"), R"("nvidia")");
  EXPECT_EQ(at(run.patched, "/spec/overhead"), R"({"cpu":"10m"})");
  for (const auto& op : run.decision.patch) EXPECT_NE(op.path, "/spec/overhead");
  const Applied kept =
      decideAndApply(gpuPod(kTraining, kOneGpu, R"("runtimeClassName":"kata")"), p);
  EXPECT_EQ(at(kept.patched, "/spec/runtimeClassName"), R"("kata")");
}

TEST(MutateRuntime, ActiveDeadlineSetOrLowered) {
  const std::string cls = R"({"gpu-admission.io/class":"interactive"})";
  const Applied absent = decideAndApply(gpuPod(cls, kOneGpu), makePolicy());
  EXPECT_EQ(at(absent.patched, "/spec/activeDeadlineSeconds"), "28800");
  const Applied larger =
      decideAndApply(gpuPod(cls, kOneGpu, R"("activeDeadlineSeconds":999999)"), makePolicy());
  EXPECT_EQ(at(larger.patched, "/spec/activeDeadlineSeconds"), "28800");
  const Applied smaller =
      decideAndApply(gpuPod(cls, kOneGpu, R"("activeDeadlineSeconds":60)"), makePolicy());
  EXPECT_EQ(at(smaller.patched, "/spec/activeDeadlineSeconds"), "60");
}

}  // namespace
}  // namespace gpua::engine
