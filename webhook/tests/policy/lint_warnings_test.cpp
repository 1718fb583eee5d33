// Warnings of a policy that loads: effects in require mode on a class whose pods without GPUs
// require mode never judges.
#include <gtest/gtest.h>

#include "policy_test_support.hpp"

namespace gpua::policy {
namespace {

using testing::doc;
using testing::load;

const std::string kPools =
    "  pools:\n"
    "  - {name: h100, gpu: H100-80GB}\n"
    "  cpuPools:\n"
    "  - {name: etl, nodeSelector: {pool: etl}}\n"
    "  classes:\n";

TEST(LintWarnings, RequireEffectsOnAClassWithoutGpuPodsAreAWarningNotAnError) {
  const auto r = load(doc(kPools + "  - name: etl\n"
                                   "    match: {any: [{labelKeys: [etl]}]}\n"
                                   "    gpus: {request: forbidden}\n"
                                   "    cpuPools: [etl]\n"
                                   "    effects: {nodePlacement: require, toleration: require}\n"));
  ASSERT_NE(r.policy, nullptr) << testing::allErrors(r);
  ASSERT_EQ(r.warnings.size(), 1u);
  EXPECT_EQ(r.warnings[0].format(),
            "p.yaml:10:5: spec.classes[0].effects: effects in require mode (nodePlacement, "
            "toleration) judge GPU pods only, and class etl takes no GPU pods: its pods get their "
            "CPU pools' placement, tolerations, priority and runtime class written as in mutate "
            "mode (hint: drop the require effects of this class, or write its placement into its "
            "pods' manifests and remove cpuPools)");
}

TEST(LintWarnings, TheClusterDefaultReachesOptionalClassesWithCpuPools) {
  const auto r = load(doc("  effects: require\n" + kPools +
                          "  - name: notebooks\n"
                          "    match: {any: [{labelKeys: [nb]}]}\n"
                          "    pools: [h100]\n"
                          "    gpus: {request: optional}\n"
                          "    cpuPools: [etl]\n"));
  ASSERT_NE(r.policy, nullptr) << testing::allErrors(r);
  ASSERT_EQ(r.warnings.size(), 1u);
  EXPECT_NE(r.warnings[0].message.find("class notebooks also places pods without GPUs"),
            std::string::npos)
      << r.warnings[0].format();
}

TEST(LintWarnings, AGpuClassInRequireModeAndResourceRequestsAreNotWarned) {
  const auto r = load(doc("  effects: require\n" + kPools +
                          "  - name: training\n"
                          "    match: {any: [{labelKeys: [t]}]}\n"
                          "    pools: [h100]\n"
                          "  - name: etl\n"
                          "    match: {any: [{labelKeys: [etl]}]}\n"
                          "    gpus: {request: forbidden}\n"
                          "    effects: {resourceRequests: require}\n"));
  ASSERT_NE(r.policy, nullptr) << testing::allErrors(r);
  // etl inherits require for its other effects from spec.effects: warned once, for etl only.
  ASSERT_EQ(r.warnings.size(), 1u);
  EXPECT_NE(r.warnings[0].message.find("class etl"), std::string::npos);
}

}  // namespace
}  // namespace gpua::policy
