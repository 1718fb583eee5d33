// NVIDIA_VISIBLE_DEVICES=void for the containers of a GPU pod that ask for no GPU.
#include <gtest/gtest.h>

#include "test_support.hpp"

namespace gpua::engine {
namespace {

using namespace testing;

TEST(MutateSidecarEnv, VoidForContainersWithoutGpu) {
  const std::string pod =
      R"({"metadata":{"name":"p","labels":{"gpu-admission.io/class":"training"}},"spec":{)"
      R"("initContainers":[{"name":"fetch"}],"containers":[)"
      R"({"name":"sidecar","env":[{"name":"A","value":"1"}]},)"
      R"({"name":"main","resources":{"limits":{"nvidia.com/gpu":1}}},)"
      R"({"name":"proxy"},)"
      R"({"name":"own","env":[{"name":"NVIDIA_VISIBLE_DEVICES","value":"none"}]}]}})";
  const Applied run = decideAndApply(pod, makePolicy());
  const std::string voidEnv = R"({"name":"NVIDIA_VISIBLE_DEVICES","value":"void"})";
  EXPECT_EQ(at(run.patched, "/spec/containers/0/env"),
            R"([{"name":"A","value":"1"},)" + voidEnv + "]");
  EXPECT_EQ(at(run.patched, "/spec/containers/1/env"), "");
  EXPECT_EQ(at(run.patched, "/spec/containers/2/env"), "[" + voidEnv + "]");
  EXPECT_EQ(at(run.patched, "/spec/containers/3/env"),
            R"([{"name":"NVIDIA_VISIBLE_DEVICES","value":"none"}])");
  EXPECT_EQ(at(run.patched, "/spec/initContainers/0/env"), "[" + voidEnv + "]");
}

}  // namespace
}  // namespace gpua::engine
