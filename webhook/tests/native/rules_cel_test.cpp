#include "native/rules_cel.hpp"

#include <gtest/gtest.h>

#include "policy/loader.hpp"
#include "policy/rule_ids.hpp"

namespace gpua::native {
namespace {

policy::PolicySet load(const std::string& extra) {
  const std::string yaml =
      "apiVersion: gpu-admission.io/v1\nkind: GpuPolicy\nmetadata: {name: t}\nspec:\n"
      "  pools:\n  - {name: h100, gpu: H100-80GB, nodeSelector: {pool: h100}}\n"
      "  - {name: l4, gpu: L4, sharing: time-slicing, replicas: 4, resource: "
      "nvidia.com/gpu.shared,\n"
      "     nodeSelector: {pool: l4}}\n"
      "  classes:\n"
      "  - {name: train, match: {any: [{labels: {c: train}}]}, pools: [h100],\n"
      "     gpus: {maxPerPod: 8, maxPerContainer: 4}, priorityClassName: gpu-training}\n"
      "  - {name: nb, match: {any: [{labels: {c: nb}}]}, pools: [l4]}\n" +
      extra;
  const auto r = policy::loadPolicySources({{"t.yaml", yaml}});
  EXPECT_TRUE(r.ok()) << (r.errors.empty() ? "" : r.errors.front().format());
  return r.ok() ? *r.policy : policy::PolicySet{};
}

TEST(RulesCel, EveryCompiledRuleIsAKnownRuleId) {
  const auto& known = policy::knownRuleIds();
  for (const auto& id : compiledRuleIds())
    EXPECT_NE(std::find(known.begin(), known.end(), id), known.end()) << id;
}

TEST(RulesCel, EachClassJudgesOnlyItsOwnPodsInTheEnginesOrder) {
  const std::string list = violationList(load(""));
  const auto train = list.find(R"((variables.cls == "train" ? )");
  const auto nb = list.find(R"((variables.cls == "nb" ? )");
  ASSERT_NE(train, std::string::npos);
  ASSERT_NE(nb, std::string::npos);
  EXPECT_LT(list.find("sets \" + e.name"), train) << "the device variable guard comes first";
  EXPECT_LT(list.find("matches no GPU class of policy"), train);
  // validate_class.cpp's order: per container, then per pod, then priority classes.
  const auto perContainer = list.find("allows at most 4 per container", train);
  const auto perPod = list.find("allows at most 8 per pod", train);
  const auto priority = list.find("names priorityClassName", train);
  EXPECT_LT(perContainer, perPod);
  EXPECT_LT(perPod, priority);
  EXPECT_LT(priority, nb);
  // The time-sliced class: more than one unit of its shared resource.
  EXPECT_NE(list.find("but class nb shares GPUs by ", nb), std::string::npos);
}

TEST(RulesCel, ANamespaceRuleExemptionDropsTheRuleThere) {
  const std::string list = violationList(
      load("  ruleExemptions:\n  - {rules: [max-per-pod], namespaces: {names: [lab]}}\n"));
  EXPECT_NE(list.find(R"(((variables.nsName in ["lab"]) ? [] : (variables.total > 8 ? [)"),
            std::string::npos)
      << list.substr(list.find("\"lab\"") > 80 ? list.find("\"lab\"") - 80 : 0, 300);
}

TEST(RulesCel, NoRulesNoViolations) {
  const auto r = policy::loadPolicySources(
      {{"t.yaml",
        "apiVersion: gpu-admission.io/v1\nkind: GpuPolicy\nmetadata: {name: t}\n"
        "spec: {unclassifiedGpuPods: allow, fieldGuards: {visibleDevicesEnv: false}}\n"}});
  ASSERT_TRUE(r.ok()) << (r.errors.empty() ? "" : r.errors.front().format());
  EXPECT_EQ(violationList(*r.policy), "[]");
}

}  // namespace
}  // namespace gpua::native

namespace gpua::native {
namespace {

TEST(RulesCel, PoolTargetingComesLastAndJudgesGpuLessPodsOfNoClassOrAForbiddenClass) {
  const std::string list = violationList(
      load("  - {name: etl, match: {any: [{labels: {c: etl}}]}, gpus: {request: forbidden}}\n"));
  const auto targeting = list.find("targets GPU pool h100 (");
  ASSERT_NE(targeting, std::string::npos);
  EXPECT_LT(list.find(R"((variables.cls == "nb" ? )"), targeting);
  EXPECT_NE(list.find(R"(!variables.hasGpu && variables.cls in ["", "etl"])"), std::string::npos);
  // validate_pool_targeting.cpp's ways in its order, and the field to remove named.
  EXPECT_NE(list.find(R"("nodeSelector pool=" + ns["pool"])"), std::string::npos);
  EXPECT_NE(list.find(R"("node affinity pool=" + v)"), std::string::npos);
  EXPECT_NE(list.find("or remove the \" + h[1] + \" so the pod runs on CPU nodes"),
            std::string::npos);
}

TEST(RulesCel, PoolTargetingOffCompilesNoCheck) {
  const std::string list = violationList(load("  fieldGuards: {gpuPoolTargeting: false}\n"));
  EXPECT_EQ(list.find("targets GPU pool"), std::string::npos);
}

}  // namespace
}  // namespace gpua::native
