// spec.dra, gpus.deviceClasses and match.deviceClasses: parsed strictly, with positions and hints.
#include <gtest/gtest.h>

#include "policy_test_support.hpp"

namespace gpua::policy {
namespace {

using testing::doc;
using testing::errorAt;
using testing::load;

// The diagnostic at `keyPath` mentions `part`.
void expectErrorContains(const LoadResult& r, const std::string& keyPath, const std::string& part) {
  const Diagnostic* d = errorAt(r, keyPath);
  ASSERT_NE(d, nullptr) << "no error at " << keyPath << "; got:\n" << testing::allErrors(r);
  EXPECT_NE(d->format().find(part), std::string::npos) << d->format();
}

const std::string kPools =
    "  pools:\n"
    "  - {name: p, gpu: H100-80GB}\n";

TEST(LoaderDra, DeviceClassesCountsAsAndDefaults) {
  auto r =
      load(doc("  dra:\n"
               "    deviceClasses:\n"
               "    - {name: gpu.nvidia.com, countsAs: nvidia.com/gpu}\n"
               "    - {name: mig.nvidia.com, countsAs: 'nvidia.com/mig-{profile}'}\n" +
               kPools +
               "  classes:\n"
               "  - {name: c, match: {any: [{deviceClasses: [mig.nvidia.com]}]}, pools: [p],\n"
               "     gpus: {deviceClasses: [mig.nvidia.com]}}\n"));
  ASSERT_TRUE(r.ok()) << testing::allErrors(r);
  const PolicySet& p = *r.policy;
  ASSERT_TRUE(p.dra.declared);
  EXPECT_EQ(p.dra.unresolvedClaims, UnresolvedClaims::Warn);
  ASSERT_EQ(p.dra.deviceClasses.size(), 2u);
  EXPECT_FALSE(p.dra.deviceClasses[0].countsByProfile());
  EXPECT_TRUE(p.dra.deviceClasses[1].countsByProfile());
  EXPECT_EQ(p.dra.deviceClasses[1].profileAttribute, "gpu.nvidia.com/profile");
  EXPECT_EQ(p.classes[0].gpus.deviceClasses, std::vector<std::string>{"mig.nvidia.com"});
  EXPECT_EQ(p.classes[0].match.any[0].deviceClasses, std::vector<std::string>{"mig.nvidia.com"});
  auto plain = load(doc(kPools));
  ASSERT_TRUE(plain.ok()) << testing::allErrors(plain);
  EXPECT_FALSE(plain.policy->dra.declared);
}

TEST(LoaderDra, BadCountsAsAndAttributesNameThePlace) {
  auto r =
      load(doc("  dra:\n"
               "    unresolvedClaims: Deny\n"
               "    deviceClasses:\n"
               "    - {name: a, countsAs: gpu}\n"
               "    - {name: b, countsAs: 'example.com/{profile}'}\n"
               "    - {name: c, countsAs: nvidia.com/mig-big}\n"
               "    - {name: d, countsAs: 'nvidia.com/mig-{profile}', profileAttribute: profile}\n"
               "    - {name: e, countsAs: nvidia.com/gpu, profileAttribute: x.io/profile}\n"
               "    - {name: a, countsAs: nvidia.com/gpu}\n"));
  EXPECT_EQ(r.policy, nullptr);
  expectErrorContains(r, "spec.dra.unresolvedClaims", "unknown value 'Deny'");
  expectErrorContains(r, "spec.dra.deviceClasses[0].countsAs", "not an extended resource name");
  expectErrorContains(r, "spec.dra.deviceClasses[1].countsAs", "'{profile}' only works");
  expectErrorContains(r, "spec.dra.deviceClasses[2].countsAs", "malformed MIG resource");
  expectErrorContains(r, "spec.dra.deviceClasses[3].profileAttribute", "has no domain");
  expectErrorContains(r, "spec.dra.deviceClasses[4].profileAttribute", "read only when");
  const Diagnostic* dup = errorAt(r, "spec.dra.deviceClasses[5].name");
  ASSERT_NE(dup, nullptr) << testing::allErrors(r);
  EXPECT_NE(dup->format().find("duplicate DRA device class 'a'"), std::string::npos);
}

TEST(LoaderDra, ClassDeviceClassesMustBeCountedAsGpus) {
  auto r =
      load(doc("  dra:\n"
               "    deviceClasses: [{name: gpu.nvidia.com, countsAs: nvidia.com/gpu}]\n" +
               kPools +
               "  classes:\n"
               "  - {name: c, match: {any: [{labels: {a: b}}]}, pools: [p],\n"
               "     gpus: {deviceClasses: [gpu.nvidia.co]}}\n"
               "  - {name: f, match: {any: [{labels: {a: c}}]}, gpus: {request: forbidden,\n"
               "     deviceClasses: [gpu.nvidia.com]}}\n"));
  EXPECT_EQ(r.policy, nullptr);
  const Diagnostic* typo = errorAt(r, "spec.classes[0].gpus.deviceClasses[0]");
  ASSERT_NE(typo, nullptr) << testing::allErrors(r);
  EXPECT_EQ(typo->format(),
            "p.yaml:11:29: spec.classes[0].gpus.deviceClasses[0]: 'gpu.nvidia.co' is not a "
            "device class of spec.dra.deviceClasses (hint: did you mean 'gpu.nvidia.com'?)");
  expectErrorContains(r, "spec.classes[1].gpus", "deviceClasses need GPUs");
}

}  // namespace
}  // namespace gpua::policy
