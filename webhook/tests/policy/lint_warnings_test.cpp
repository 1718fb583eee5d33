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

// The one warning a policy that loads gets.
Diagnostic onlyWarning(const std::string& spec) {
  const auto r = load(doc(spec));
  EXPECT_NE(r.policy, nullptr) << testing::allErrors(r);
  EXPECT_EQ(r.warnings.size(), 1u);
  return r.warnings.empty() ? Diagnostic{} : r.warnings[0];
}

TEST(LintWarnings, RequireEffectsOnAClassWithoutGpuPodsAreAWarningNotAnError) {
  EXPECT_EQ(onlyWarning(kPools + "  - name: etl\n"
                                 "    match: {any: [{labelKeys: [etl]}]}\n"
                                 "    gpus: {request: forbidden}\n"
                                 "    cpuPools: [etl]\n"
                                 "    effects: {nodePlacement: require, toleration: require}\n")
                .format(),
            "p.yaml:10:5: spec.classes[0].effects: effects in require mode (nodePlacement, "
            "toleration) judge GPU pods only, and class etl takes no GPU pods: its pods get their "
            "CPU pools' placement, tolerations, priority and runtime class written as in mutate "
            "mode (hint: drop the require effects of this class, or write its placement into its "
            "pods' manifests and remove cpuPools)");
}

TEST(LintWarnings, TheClusterDefaultReachesOptionalClassesWithCpuPools) {
  const Diagnostic w = onlyWarning("  effects: require\n" + kPools +
                                   "  - name: notebooks\n"
                                   "    match: {any: [{labelKeys: [nb]}]}\n"
                                   "    pools: [h100]\n"
                                   "    gpus: {request: optional}\n"
                                   "    cpuPools: [etl]\n");
  EXPECT_NE(w.message.find("class notebooks also places pods without GPUs"), std::string::npos)
      << w.format();
}

TEST(LintWarnings, AGpuClassInRequireModeAndResourceRequestsAreNotWarned) {
  // etl inherits require for its other effects from spec.effects: warned once, for etl only.
  const Diagnostic w = onlyWarning("  effects: require\n" + kPools +
                                   "  - name: training\n"
                                   "    match: {any: [{labelKeys: [t]}]}\n"
                                   "    pools: [h100]\n"
                                   "  - name: etl\n"
                                   "    match: {any: [{labelKeys: [etl]}]}\n"
                                   "    gpus: {request: forbidden}\n"
                                   "    effects: {resourceRequests: require}\n");
  EXPECT_NE(w.message.find("class etl"), std::string::npos) << w.format();
}

}  // namespace
}  // namespace gpua::policy
