// Tolerations for the pools' taints, added only when not already tolerated.
#include <gtest/gtest.h>

#include "test_support.hpp"

namespace gpua::engine {
namespace {

using namespace testing;

const std::string kGpuToleration =
    R"({"key":"nvidia.com/gpu","operator":"Exists","effect":"NoSchedule"})";

TEST(MutateTolerations, CreatesListWhenAbsent) {
  const Applied run = decideAndApply(gpuPod(kTraining, kOneGpu), makePolicy());
  EXPECT_EQ(at(run.patched, "/spec/tolerations"), "[" + kGpuToleration + "]");
  EXPECT_EQ(run.decision.changes[1], "toleration nvidia.com/gpu");
}

TEST(MutateTolerations, AppendsKeepingExisting) {
  const Applied run = decideAndApply(
      gpuPod(
          kTraining, kOneGpu,
          R"("tolerations":[{"key":"sku","operator":"Equal","value":"gpu","effect":"NoSchedule"}])"),
      makePolicy());
  EXPECT_EQ(at(run.patched, "/spec/tolerations"),
            R"([{"key":"sku","operator":"Equal","value":"gpu","effect":"NoSchedule"},)" +
                kGpuToleration + "]");
}

TEST(MutateTolerations, ExistingTolerationsThatCoverTheTaint) {
  for (const std::string t :
       {R"({"key":"nvidia.com/gpu","operator":"Exists"})", R"({"operator":"Exists"})",
        R"({"key":"nvidia.com/gpu","operator":"Exists","effect":"NoSchedule"})",
        R"({"key":"nvidia.com/gpu","operator":"Equal","value":"","effect":"NoSchedule"})"}) {
    SCOPED_TRACE(t);
    const Applied run =
        decideAndApply(gpuPod(kTraining, kOneGpu, R"("tolerations":[)" + t + "]"), makePolicy());
    for (const auto& op : run.decision.patch)
      EXPECT_EQ(op.path.find("/spec/tolerations"), std::string::npos);
  }
}

TEST(MutateTolerations, WrongEffectOrValueDoesNotCover) {
  for (const std::string t :
       {R"({"key":"nvidia.com/gpu","operator":"Exists","effect":"NoExecute"})",
        R"({"key":"nvidia.com/gpu","operator":"Equal","value":"x"})"}) {
    SCOPED_TRACE(t);
    const Applied run =
        decideAndApply(gpuPod(kTraining, kOneGpu, R"("tolerations":[)" + t + "]"), makePolicy());
    EXPECT_EQ(at(run.patched, "/spec/tolerations/1"), kGpuToleration);
  }
}

TEST(MutateTolerations, EqualTaintWithValue) {
  auto p = makePolicy();
  p.pools[0].taints = {{"dedicated", "gpu", "NoExecute"}, {"nvidia.com/gpu", "", ""}};
  const Applied run = decideAndApply(gpuPod(kTraining, kOneGpu), p);
  EXPECT_EQ(at(run.patched, "/spec/tolerations"),
            R"([{"key":"dedicated","operator":"Equal","value":"gpu","effect":"NoExecute"},)"
            R"({"key":"nvidia.com/gpu","operator":"Exists"}])");
}

}  // namespace
}  // namespace gpua::engine
