#include "native/require_rules_cel.hpp"

#include <gtest/gtest.h>

#include "native/rules_cel.hpp"
#include "native_test_support.hpp"
#include "policy/rule_ids.hpp"

namespace gpua::native {
namespace {

namespace rules = policy::rules;

policy::PolicySet load(const std::string& effects, const std::string& extra = "") {
  return testing::load(
      "apiVersion: gpu-admission.io/v1\nkind: GpuPolicy\nmetadata: {name: t}\nspec:\n"
      "  pools:\n"
      "  - {name: h100, gpu: H100-80GB, nodeSelector: {pool: h100}, runtimeClassName: nvidia,\n"
      "     taints: [{key: nvidia.com/gpu, effect: NoSchedule}]}\n"
      "  - {name: a100, gpu: A100-80GB, sharing: mig, migProfiles: [2g.20gb], nodeSelector: "
      "{pool: a100}}\n"
      "  classes:\n"
      "  - name: train\n    match: {any: [{labels: {c: train}}]}\n    pools: [h100]\n"
      "    priorityClassName: gpu-training\n"
      "    containers: {defaultRequestsPerGpu: {cpu: \"8\", memory: 64Gi}}\n"
      "    effects: " +
      effects + "\n" +
      "  - name: infer\n    match: {any: [{labels: {c: infer}}]}\n    pools: [a100]\n"
      "    gpus: {migProfile: 2g.20gb}\n    effects: " +
      (effects == "mutate" ? effects : std::string("{resourceName: require}")) + "\n" + extra);
}

std::vector<std::string> ids(const std::vector<RuleList>& lists) {
  std::vector<std::string> out;
  for (const auto& l : lists) out.emplace_back(l.rule);
  return out;
}

constexpr const char* kAll =
    "{nodePlacement: mutate, toleration: require, priorityClass: require, runtimeClass: require, "
    "resourceName: require, resourceRequests: require}";

TEST(RequireRulesCel, InTheEnginesOrder) {
  const auto p = load(kAll);
  EXPECT_EQ(ids(requiredEffectRules(p, p.classes[0])),
            (std::vector<std::string>{rules::kResourceRequestsRequired,
                                      rules::kResourceNameRequired, rules::kTolerationRequired,
                                      rules::kPriorityClassRequired, rules::kRuntimeClassRequired}))
      << "its pool has a taint and a runtime class (node placement is written: mutate)";
  EXPECT_EQ(ids(requiredEffectRules(p, p.classes[1])),
            std::vector<std::string>{rules::kResourceNameRequired})
      << "the MIG class has no taint, runtime class, priority class or defaults";
  // After the class's priority-class rule, in the class's list.
  const std::string list = violationList(p);
  const auto train = list.find("(variables.cls == \"train\" ? ");
  const auto tol = list.find("does not tolerate the taints of pool h100", train);
  ASSERT_NE(tol, std::string::npos);
  EXPECT_LT(list.find("has containers without the default requests or limits", train), tol);
  EXPECT_LT(tol, list.find("names no runtimeClassName for the GPU nodes of pool h100", train));
}

TEST(RequireRulesCel, MutateModeCompilesNothing) {
  const auto p = load("mutate");
  EXPECT_TRUE(requiredEffectRules(p, p.classes[0]).empty());
  EXPECT_TRUE(requiredEffectRules(p, p.classes[1]).empty());
  EXPECT_EQ(violationList(p).find("rather than adds"), std::string::npos);
}

TEST(RequireRulesCel, TheFixIsWhatTheMutationWouldWrite) {
  const auto p = load(kAll);
  const auto lists = requiredEffectRules(p, p.classes[0]);
  ASSERT_EQ(lists.size(), 5U);
  // A class on whole GPUs renames nothing: only requests without limits are named.
  EXPECT_NE(lists[1].list.find("sets GPU requests without limits, and class train requires"),
            std::string::npos);
  // The toleration as mutate_tolerations writes it, added to a list or set whole.
  EXPECT_NE(
      lists[2].list.find(
          R"("{\"key\":\"nvidia.com/gpu\",\"operator\":\"Exists\",\"effect\":\"NoSchedule\"}")"),
      std::string::npos)
      << lists[2].list;
  EXPECT_NE(lists[2].list.find("\"add to spec.tolerations: \""), std::string::npos);
  EXPECT_NE(lists[2].list.find("\"set spec.tolerations: [\""), std::string::npos);
  EXPECT_NE(lists[3].list.find(R"(set spec.priorityClassName: \"gpu-training\")"),
            std::string::npos);
  EXPECT_NE(lists[4].list.find(R"(set spec.runtimeClassName: \"nvidia\")"), std::string::npos);
  // Per-GPU defaults in the policy's unit: 8000 thousandths of cpu, 64Gi of memory per GPU.
  EXPECT_NE(lists[0].list.find("8000 * u,"), std::string::npos);
  EXPECT_NE(lists[0].list.find("string(b / 1073741824) + \"Gi\""), std::string::npos);
  const auto mig = requiredEffectRules(p, p.classes[1]);
  EXPECT_NE(mig[0].list.find(" but class infer runs on "), std::string::npos);
  EXPECT_NE(mig[0].list.find("\"nvidia.com/mig-2g.20gb\""), std::string::npos);
}

TEST(RequireRulesCel, PlacementWritesThePoolsTermsOrTheirLabels) {
  const auto p = load(
      "{nodePlacement: require, toleration: mutate, priorityClass: mutate, runtimeClass: "
      "mutate}");
  const auto lists = requiredEffectRules(p, p.classes[0]);
  ASSERT_EQ(lists.size(), 1U);
  EXPECT_EQ(lists[0].rule, rules::kNodePlacementRequired);
  EXPECT_NE(lists[0].list.find(R"("{\"key\":\"pool\",\"operator\":\"In\",\"values\":[\"h100\"]}")"),
            std::string::npos)
      << lists[0].list;
  EXPECT_NE(lists[0].list.find(R"(" (or add to spec.nodeSelector: {\"pool\":\"h100\"}")"),
            std::string::npos);
  EXPECT_NE(lists[0].list.find("\"set spec.affinity: {"), std::string::npos);
}

TEST(RequireRulesCel, ANamespaceRuleExemptionDropsTheRuleThere) {
  const auto p = load(kAll,
                      "  ruleExemptions:\n  - {rules: [toleration-required], namespaces: "
                      "{names: [lab]}}\n");
  EXPECT_NE(violationList(p).find("((variables.nsName in [\"lab\"]) ? [] : (variables.hasGpu ? "
                                  "cel.bind(tols,"),
            std::string::npos);
}

TEST(RequireRulesCel, CompiledRuleIdsListThem) {
  const auto& done = compiledRuleIds();
  for (const char* id :
       {rules::kResourceRequestsRequired, rules::kResourceNameRequired, rules::kTolerationRequired,
        rules::kPriorityClassRequired, rules::kRuntimeClassRequired})
    EXPECT_NE(std::find(done.begin(), done.end(), id), done.end()) << id;
}

}  // namespace
}  // namespace gpua::native
