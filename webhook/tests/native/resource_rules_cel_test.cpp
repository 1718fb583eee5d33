#include "native/resource_rules_cel.hpp"

#include <gtest/gtest.h>

#include "native/rules_cel.hpp"
#include "native_test_support.hpp"
#include "policy/rule_ids.hpp"

namespace gpua::native {
namespace {

namespace rules = policy::rules;

policy::PolicySet load(const std::string& classContainers, const std::string& extra = "") {
  return testing::load(
      "apiVersion: gpu-admission.io/v1\nkind: GpuPolicy\nmetadata: {name: t}\nspec:\n"
      "  pools:\n  - {name: h100, gpu: H100-80GB, nodeSelector: {pool: h100}}\n"
      "  classes:\n"
      "  - name: train\n    match: {any: [{labels: {c: train}}]}\n    pools: [h100]\n"
      "    containers: " +
      classContainers + "\n" + extra);
}

std::vector<std::string> ids(const std::vector<RuleList>& lists) {
  std::vector<std::string> out;
  for (const auto& l : lists) out.emplace_back(l.rule);
  return out;
}

TEST(ResourceRulesCel, EveryRuleInTheEnginesOrder) {
  const auto p = load(
      "{requireRequests: [cpu], qos: Guaranteed, maxPerGpu: {cpu: \"8\"}, maxLimitRequestRatio: "
      "{memory: \"2\"}, maxPerContainer: {memory: 64Gi}, requiredEnv: [{name: TEAM}]}");
  EXPECT_EQ(
      ids(containerResourceRules(p, p.classes.front())),
      (std::vector<std::string>{rules::kContainerResourcesMissing, rules::kQosNotGuaranteed,
                                rules::kResourcesPerGpuExceeded, rules::kLimitRequestRatioExceeded,
                                rules::kContainerResourcesExceeded, rules::kRequiredEnvMissing}));
  const auto b = load("{qos: Burstable}");
  EXPECT_EQ(ids(containerResourceRules(b, b.classes.front())),
            std::vector<std::string>{rules::kQosBestEffort});
}

TEST(ResourceRulesCel, NoRuleCompilesNothing) {
  const auto p = load("{appliesTo: gpuPods}");
  EXPECT_TRUE(containerResourceRules(p, p.classes.front()).empty());
  EXPECT_EQ(allPodsJudged(p), "false");
}

TEST(ResourceRulesCel, TheWordsAndNumbersOfTheEngine) {
  const auto p = load(
      "{requireRequests: [cpu, memory], requireLimits: [memory], maxPerGpu: {cpu: \"24\"}, "
      "maxLimitRequestRatio: {memory: \"1.5\"}, maxPerContainer: {memory: 64Gi}, requiredEnv: "
      "[{name: NVIDIA_DRIVER_CAPABILITIES, value: all}]}");
  const auto lists = containerResourceRules(p, p.classes.front());
  ASSERT_EQ(lists.size(), 5U);
  EXPECT_NE(lists[0].list.find("; class train requires cpu and memory requests and memory limits "
                               "on every container of its "),
            std::string::npos);
  EXPECT_NE(lists[0].list.find("\"no cpu request\""), std::string::npos);
  // The per-GPU maximum in thousandths, the GPUs from the pod's units.
  EXPECT_NE(lists[1].list.find("(t + g - 1) / g <= 24000 ?"), std::string::npos);
  EXPECT_NE(lists[1].list.find(" per GPU), above the 24 per GPU of class train: request at most "),
            std::string::npos);
  // The ratio exactly (1.5 is 1500 thousandths), printed as the engine prints it.
  EXPECT_NE(lists[2].list.find("l * 1000 <= 1500 * q"), std::string::npos);
  EXPECT_NE(lists[2].list.find(", above the 1.5x class train allows: lower "), std::string::npos);
  EXPECT_NE(lists[3].list.find("quantity(\"64Gi\").isLessThan("), std::string::npos);
  EXPECT_NE(lists[4].list.find(R"({\"name\":\"NVIDIA_DRIVER_CAPABILITIES\",\"value\":\"all\"})"),
            std::string::npos);
  EXPECT_NE(lists[4].list.find("(envFrom is not visible at admission)"), std::string::npos);
}

TEST(ResourceRulesCel, MemoryIsShownInTheLargestBinaryUnit) {
  const auto p = load("{maxPerContainer: {memory: 64Gi}}");
  const std::string list = containerResourceRules(p, p.classes.front()).front().list;
  EXPECT_NE(list.find("b % 1073741824 == 0 ? string(b / 1073741824) + \"Gi\""), std::string::npos);
  const auto cpu = load("{maxPerContainer: {cpu: \"4\"}}");
  EXPECT_EQ(containerResourceRules(cpu, cpu.classes.front()).front().list.find("\"Gi\""),
            std::string::npos);
}

TEST(ResourceRulesCel, DefaultsTheClassWritesCountAsPresent) {
  // Written (mutate): a container without a cpu request gets one, so the rule reads the default.
  const auto w = load("{requireRequests: [cpu], defaultRequestsPerGpu: {cpu: \"8\"}}");
  const std::string written = containerResourceRules(w, w.classes.front()).front().list;
  EXPECT_NE(written.find("variables.skip != \"validateOnly\""), std::string::npos);
  EXPECT_NE(written.find("[quantity(string(8000 * gu) + \"m\")]"), std::string::npos);
  // Demanded (require): nothing is written, so nothing counts.
  const auto r = load(
      "{requireRequests: [cpu], defaultRequestsPerGpu: {cpu: \"8\"}}\n"
      "    effects: {resourceRequests: require}");
  const std::string demanded = containerResourceRules(r, r.classes.front()).front().list;
  EXPECT_EQ(demanded.find("variables.skip != \"validateOnly\""), std::string::npos);
}

TEST(ResourceRulesCel, ScopeAndPlaceInTheViolationList) {
  const auto p = load("{requiredEnv: [{name: TEAM}], appliesTo: classPods}",
                      "  containers: {appliesTo: allPods, maxPerContainer: {memory: 64Gi}}\n");
  // The class's rules are the cluster default's overlaid with its own.
  const auto cls = containerResourceRules(p, p.classes.front());
  ASSERT_EQ(cls.size(), 2U);
  EXPECT_EQ(cls.back().rule, rules::kRequiredEnvMissing);
  EXPECT_NE(cls.back().list.find("(variables.hasGpu ? "), 0U) << "classPods";
  const auto gpu = load("{requiredEnv: [{name: TEAM}]}");
  EXPECT_EQ(
      containerResourceRules(gpu, gpu.classes.front()).front().list.find("(variables.hasGpu ? "),
      0U)
      << "placedPods of a GPU class: its GPU pods";
  // The allPods pseudo-class judges the pods no class takes, after pool targeting.
  EXPECT_EQ(allPodsJudged(p), "(variables.cls == \"\" && !variables.hasGpu)");
  const std::string list = violationList(p);
  const auto train = list.find("(variables.cls == \"train\" ? ");
  const auto all = list.find("(variables.cls == \"\" && !variables.hasGpu) ? ");
  ASSERT_NE(train, std::string::npos);
  ASSERT_NE(all, std::string::npos);
  EXPECT_LT(train, all);
  EXPECT_NE(list.find("of the cluster default (spec.containers): lower ", all), std::string::npos);
}

TEST(ResourceRulesCel, ANamespaceRuleExemptionDropsTheRuleThere) {
  const auto p = load("{requiredEnv: [{name: TEAM}]}",
                      "  ruleExemptions:\n  - {rules: [required-env-missing], namespaces: "
                      "{names: [lab]}}\n");
  EXPECT_NE(violationList(p).find("((variables.nsName in [\"lab\"]) ? [] : (variables.hasGpu ? "),
            std::string::npos);
}

TEST(ResourceRulesCel, CompiledRuleIdsListThem) {
  const auto& done = compiledRuleIds();
  for (const char* id :
       {rules::kContainerResourcesMissing, rules::kQosNotGuaranteed, rules::kQosBestEffort,
        rules::kResourcesPerGpuExceeded, rules::kLimitRequestRatioExceeded,
        rules::kContainerResourcesExceeded, rules::kRequiredEnvMissing})
    EXPECT_NE(std::find(done.begin(), done.end(), id), done.end()) << id;
}

}  // namespace
}  // namespace gpua::native
