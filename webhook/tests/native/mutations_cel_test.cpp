// Which of the webhook's mutations the compiler writes, and on which conditions; what the
// compiled JSON Patches store on a real apiserver (and that the webhook then writes nothing
// more) is the live suite's (testcluster/live/native_backstop_test.go), and
// mutated_pods_test.cpp runs the engine on pods those policies stored.
#include "native/mutations_cel.hpp"

#include <gtest/gtest.h>

#include <algorithm>

#include "native_test_support.hpp"
#include "policy/loader.hpp"

namespace gpua::native {
namespace {

using testing::load;

std::string policyWith(const std::string& classExtra, const std::string& specExtra = "",
                       const std::string& poolExtra = "") {
  return R"(apiVersion: gpu-admission.io/v1
kind: GpuPolicy
metadata: {name: t}
spec:
  pools:
  - name: h100
    gpu: H100-80GB
    nodeSelector: {pool: h100}
    taints: [{key: nvidia.com/gpu, effect: NoSchedule}]
)" + poolExtra +
         R"(  classes:
  - name: training
    match: {any: [{labels: {gpu-admission.io/class: training}}]}
    pools: [h100]
)" + classExtra +
         specExtra;
}

std::vector<std::string> names(const std::vector<CompiledMutation>& ms) {
  std::vector<std::string> out;
  for (const auto& m : ms) out.push_back(m.name);
  return out;
}

const CompiledMutation* find(const std::vector<CompiledMutation>& ms, const std::string& name) {
  for (const auto& m : ms)
    if (m.name == name) return &m;
  return nullptr;
}

bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TEST(MutationsCel, EveryMutationOfTheShippedPolicyIsCompiledInTheEnginesOrder) {
  const auto loaded = policy::loadPolicyPaths({GPUA_POLICIES_DIR});
  ASSERT_TRUE(loaded.ok());
  EXPECT_EQ(names(compiledMutations(*loaded.policy)),
            (std::vector<std::string>{"resources", "placement", "tolerations", "priority",
                                      "runtime", "visible-devices", "annotations"}));
}

TEST(MutationsCel, AnEffectInRequireModeIsNotWritten) {
  const auto ms = compiledMutations(
      load(policyWith("    effects: {nodePlacement: require, toleration: require}\n")));
  EXPECT_EQ(find(ms, "placement"), nullptr);
  EXPECT_EQ(find(ms, "tolerations"), nullptr);
  ASSERT_NE(find(ms, "resources"), nullptr);  // limits = requests still
}

TEST(MutationsCel, VoidNonGpuContainersOffWritesNoDeviceVariable) {
  EXPECT_NE(find(compiledMutations(load(policyWith(""))), "visible-devices"), nullptr);
  const auto ms =
      compiledMutations(load(policyWith("", "  fieldGuards: {voidNonGpuContainers: false}\n")));
  EXPECT_EQ(find(ms, "visible-devices"), nullptr);
}

TEST(MutationsCel, PlacementViaNodeSelectorWritesTheSelectorNotAffinity) {
  const auto ms =
      compiledMutations(load(policyWith("    placement: {via: nodeSelector, onConflict: deny}\n")));
  const auto* m = find(ms, "placement");
  ASSERT_NE(m, nullptr);
  EXPECT_TRUE(has(m->patch, "\"/spec/nodeSelector/pool\""));
  EXPECT_FALSE(has(m->patch, "nodeAffinity"));
  // onConflict deny: a selector holding the key with another value is left whole.
  EXPECT_TRUE(has(m->patch, "false || (\"pool\" in ns && ns[\"pool\"] != \"h100\") ? []"));
}

TEST(MutationsCel, AffinityTermsAreExtendedWithWhatTheyDoNotImply) {
  const auto ms = compiledMutations(load(policyWith("")));
  const auto* m = find(ms, "placement");
  ASSERT_NE(m, nullptr);
  EXPECT_TRUE(
      has(m->patch, "matchExpressions{key: \"pool\", operator: \"In\", values: [\"h100\"]}"));
  EXPECT_TRUE(has(m->patch, "terms.map(t, "));  // one pool: one term per term, no flatten
  EXPECT_FALSE(has(m->patch, "flatten"));
}

TEST(MutationsCel, APoolRuntimeClassAndTheClassDeadlineAreWritten) {
  EXPECT_EQ(find(compiledMutations(load(policyWith(""))), "runtime"), nullptr);
  const auto ms = compiledMutations(
      load(policyWith("    maxRunSeconds: 3600\n", "", "    runtimeClassName: nvidia\n")));
  const auto* m = find(ms, "runtime");
  ASSERT_NE(m, nullptr);
  EXPECT_TRUE(has(m->patch, "value: \"nvidia\""));
  EXPECT_TRUE(has(m->patch, "object.spec.activeDeadlineSeconds <= 3600"));
}

TEST(MutationsCel, TheAnnotationsNameThePolicyRevision) {
  const auto p = load(policyWith(""));
  const auto ms = compiledMutations(p);
  const auto* m = find(ms, "annotations");
  ASSERT_NE(m, nullptr);
  EXPECT_TRUE(has(m->patch, "\"t@" + p.revision + "\""));
}

TEST(MutationsCel, ContainerDefaultsAreListedAsNotCompiled) {
  const auto without = uncompiledMutations(load(policyWith("")));
  const auto with = uncompiledMutations(
      load(policyWith("    containers: {defaultRequestsPerGpu: {cpu: \"8\"}}\n")));
  auto mentions = [](const std::vector<std::string>& v) {
    return std::any_of(v.begin(), v.end(),
                       [](const std::string& s) { return has(s, "container defaults"); });
  };
  EXPECT_FALSE(mentions(without));
  EXPECT_TRUE(mentions(with));
}

}  // namespace
}  // namespace gpua::native
