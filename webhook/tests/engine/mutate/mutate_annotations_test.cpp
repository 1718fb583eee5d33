// The class and policy annotations a classified pod gets.
#include <gtest/gtest.h>

#include "test_support.hpp"

namespace gpua::engine {
namespace {

using namespace testing;

TEST(MutateAnnotations, CreatedWholeOrAddedWithEscapedKeys) {
  const Applied none = decideAndApply(gpuPod(kTraining, kOneGpu), makePolicy());
  EXPECT_EQ(at(none.patched, "/metadata/annotations"),
            R"({"gpu-admission.io/class":"training","gpu-admission.io/policy":"cluster@r1a2b3"})");
  const std::string withAnnotations =
      R"({"metadata":{"name":"p","labels":{"gpu-admission.io/class":"training"},"annotations":{"a":"b","gpu-admission.io/class":"old"}},)"
      R"("spec":{"containers":[{"name":"c","resources":{"limits":{"nvidia.com/gpu":1}}}]}})";
  const Applied some = decideAndApply(withAnnotations, makePolicy());
  EXPECT_EQ(
      at(some.patched, "/metadata/annotations"),
      R"({"a":"b","gpu-admission.io/class":"training","gpu-admission.io/policy":"cluster@r1a2b3"})");
  bool escaped = false;
  for (const auto& op : some.decision.patch)
    escaped = escaped || op.path == "/metadata/annotations/gpu-admission.io~1policy";
  EXPECT_TRUE(escaped);
}

}  // namespace
}  // namespace gpua::engine
