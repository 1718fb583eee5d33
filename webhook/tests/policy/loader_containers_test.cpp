// Loading `containers` (docs/policy-reference.md) for a class and as the cluster default
// (spec.containers): exact quantities, resource names, ratios, QoS, required env, the overlay
// of a class over the default, and every error with file:line:column, key path and hint.
#include <gtest/gtest.h>

#include "policy_test_support.hpp"

namespace gpua::policy {
namespace {

using testing::doc;
using testing::expectError;
using testing::load;

const std::string kClass =  // lines 5-10; the class's `containers:` goes on line 11
    "  pools:\n"
    "  - {name: h100, gpu: H100-80GB}\n"
    "  classes:\n"
    "  - name: t\n"
    "    match: {any: [{labelKeys: [k]}]}\n"
    "    pools: [h100]\n";

const ContainerRules& rulesOf(const LoadResult& r, std::size_t cls = 0) {
  return r.policy->classes[cls].containers;
}

TEST(LoaderContainers, ValidRulesLoadWithExactQuantities) {
  auto r =
      load(doc(kClass +
               "    containers:\n"
               "      requireRequests: [cpu, memory]\n"
               "      requireLimits: [memory]\n"
               "      qos: Burstable\n"
               "      maxPerGpu: {cpu: 16, memory: 240Gi}\n"
               "      maxLimitRequestRatio: {cpu: \"1.5\"}\n"
               "      defaultRequestsPerGpu: {cpu: 500m, memory: 1e3}\n"
               "      requiredEnv: [{name: NVIDIA_DRIVER_CAPABILITIES}, {name: A, value: b}]\n"));
  ASSERT_NE(r.policy, nullptr) << testing::allErrors(r);
  const ContainerRules& c = rulesOf(r);
  EXPECT_EQ(c.requireRequests, (std::vector<std::string>{"cpu", "memory"}));
  EXPECT_EQ(c.requireLimits, std::vector<std::string>{"memory"});
  EXPECT_EQ(c.qos, QosClass::Burstable);
  EXPECT_EQ(c.maxPerGpu.at("memory").value, kube::Quantity::ofUnits(int64_t{240} << 30));
  EXPECT_EQ(c.maxPerGpu.at("memory").text, "240Gi");
  EXPECT_EQ(c.maxLimitRequestRatio.at("cpu").value, (kube::Quantity{1, 500000000}));
  // 500m is 0.5 and 1e3 is 1000: the Kubernetes grammar, exactly.
  EXPECT_EQ(c.defaultRequestsPerGpu.at("cpu").value, *kube::parseQuantity("0.5"));
  EXPECT_EQ(c.defaultRequestsPerGpu.at("memory").value, kube::Quantity::ofUnits(1000));
  ASSERT_EQ(c.requiredEnv.size(), 2u);
  EXPECT_FALSE(c.requiredEnv[0].value.has_value());
  EXPECT_EQ(c.requiredEnv[1].value, "b");
}

TEST(LoaderContainers, ClassKeysReplaceTheClusterDefaultKeyByKey) {
  auto r =
      load(doc("  containers:\n"
               "    requireRequests: [cpu, memory]\n"
               "    requiredEnv: [{name: NVIDIA_DRIVER_CAPABILITIES}]\n" +
               kClass +  // the class moves two lines down: `containers:` on line 13
               "    containers: {requireRequests: [memory], maxPerGpu: {cpu: 8}}\n"
               "  - name: plain\n"
               "    match: {any: [{labelKeys: [p]}]}\n"
               "    pools: [h100]\n"
               "  - name: cpu-only\n"
               "    match: {any: [{labelKeys: [c]}]}\n"));
  ASSERT_NE(r.policy, nullptr) << testing::allErrors(r);
  EXPECT_EQ(rulesOf(r).requireRequests, std::vector<std::string>{"memory"});  // the class's
  EXPECT_EQ(rulesOf(r).requiredEnv.size(), 1u);                               // the default's
  EXPECT_EQ(rulesOf(r).maxPerGpu.at("cpu").value, kube::Quantity::ofUnits(8));
  EXPECT_EQ(rulesOf(r, 1).requireRequests, (std::vector<std::string>{"cpu", "memory"}));
  // GPUs forbidden: the class's pods have no GPUs, and the default judges them too.
  EXPECT_EQ(rulesOf(r, 2).requireRequests, (std::vector<std::string>{"cpu", "memory"}));
  EXPECT_EQ(rulesOf(r, 2).appliesTo, RuleScope::PlacedPods);
}

TEST(LoaderContainers, AnEmptyListInAClassTurnsTheDefaultOff) {
  auto r = load(doc("  containers: {requireRequests: [cpu], qos: Guaranteed}\n" + kClass +
                    "    containers: {requireRequests: [], qos: BestEffort}\n"));
  ASSERT_NE(r.policy, nullptr) << testing::allErrors(r);
  EXPECT_TRUE(rulesOf(r).empty());
}

TEST(LoaderContainers, ResourceRequestsIsAnEffect) {
  auto r = load(doc("  effects: require\n" + kClass +
                    "    containers: {defaultRequestsPerGpu: {cpu: 4}}\n"
                    "  - name: u\n"
                    "    match: {any: [{labelKeys: [u]}]}\n"
                    "    pools: [h100]\n"
                    "    effects: {resourceRequests: mutate}\n"));
  ASSERT_NE(r.policy, nullptr) << testing::allErrors(r);
  EXPECT_EQ(r.policy->classes[0].effects.resourceRequests, EffectMode::Require);
  EXPECT_EQ(r.policy->classes[1].effects.resourceRequests, EffectMode::Mutate);
}

TEST(LoaderContainers, UnknownKeyHasDidYouMean) {
  auto r = load(doc(kClass + "    containers: {requireRequest: [cpu]}\n"));
  expectError(r, "spec.classes[0].containers.requireRequest",
              "p.yaml:11:18: spec.classes[0].containers.requireRequest: unknown key "
              "'requireRequest' (hint: did you mean 'requireRequests'?)");
}

TEST(LoaderContainers, UnknownClusterDefaultKey) {
  auto r = load(doc("  containers: {maxPerGPU: {cpu: 4}}\n"));
  expectError(r, "spec.containers.maxPerGPU",
              "p.yaml:5:16: spec.containers.maxPerGPU: unknown key 'maxPerGPU' (hint: did you "
              "mean 'maxPerGpu'?)");
}

TEST(LoaderContainers, UnknownResourceName) {
  auto r = load(doc(
      kClass + "    containers: {requireRequests: [memroy], maxPerGpu: {nvidia.com/gpu: 1}}\n"));
  expectError(r, "spec.classes[0].containers.requireRequests[0]",
              "p.yaml:11:36: spec.classes[0].containers.requireRequests[0]: unknown resource "
              "'memroy' (hint: did you mean 'memory'? (GPUs are governed by the class's gpus))");
  expectError(r, "spec.classes[0].containers.maxPerGpu.nvidia.com/gpu",
              "p.yaml:11:57: spec.classes[0].containers.maxPerGpu.nvidia.com/gpu: unknown "
              "resource 'nvidia.com/gpu' (hint: expected cpu or memory (GPUs are governed by the "
              "class's gpus))");
}

TEST(LoaderContainers, MalformedAndOutOfRangeQuantities) {
  auto r = load(doc(kClass + "    containers: {maxPerGpu: {memory: 64GB, cpu: 1e40}}\n"));
  expectError(r, "spec.classes[0].containers.maxPerGpu.memory",
              "p.yaml:11:38: spec.classes[0].containers.maxPerGpu.memory: malformed quantity "
              "'64GB' (hint: Kubernetes quantities look like 500m, 2, 1.5, 64Gi or 1e3)");
  expectError(r, "spec.classes[0].containers.maxPerGpu.cpu",
              "p.yaml:11:49: spec.classes[0].containers.maxPerGpu.cpu: quantity out of range "
              "'1e40' (hint: Kubernetes quantities look like 500m, 2, 1.5, 64Gi or 1e3)");
}

TEST(LoaderContainers, ZeroAndNegativeAreNotAmounts) {
  auto r = load(doc(
      kClass + "    containers: {maxPerGpu: {cpu: 0}, defaultRequestsPerGpu: {memory: -1Gi}}\n"));
  expectError(r, "spec.classes[0].containers.maxPerGpu.cpu",
              "p.yaml:11:35: spec.classes[0].containers.maxPerGpu.cpu: must be greater than 0, "
              "got 0");
  expectError(r, "spec.classes[0].containers.defaultRequestsPerGpu.memory",
              "p.yaml:11:71: spec.classes[0].containers.defaultRequestsPerGpu.memory: must be "
              "greater than 0, got -1Gi");
}

TEST(LoaderContainers, RatioBelowOneOrTooFine) {
  auto r =
      load(doc(kClass + "    containers: {maxLimitRequestRatio: {cpu: 500m, memory: 1.0005}}\n"));
  expectError(r, "spec.classes[0].containers.maxLimitRequestRatio.cpu",
              "p.yaml:11:46: spec.classes[0].containers.maxLimitRequestRatio.cpu: a "
              "limit/request ratio must be at least 1, got 500m (hint: a limit is never below "
              "its request; 1 means limits equal to requests)");
  expectError(r, "spec.classes[0].containers.maxLimitRequestRatio.memory",
              "p.yaml:11:60: spec.classes[0].containers.maxLimitRequestRatio.memory: a "
              "limit/request ratio is a number from 1 to 1000 with at most 3 decimals, got "
              "1.0005");
}

TEST(LoaderContainers, DefaultAboveItsMaximum) {
  // The default comes from spec.containers, the maximum from the class: only the combination
  // is wrong, and the error points at the class's containers (one line down: line 12).
  auto r = load(doc("  containers: {defaultRequestsPerGpu: {cpu: 32, memory: 64Gi}}\n" + kClass +
                    "    containers: {maxPerGpu: {cpu: 24000m, memory: 68719476736}}\n"));
  EXPECT_EQ(r.policy, nullptr);
  ASSERT_EQ(r.errors.size(), 1u) << testing::allErrors(r);  // 64Gi is not above 68719476736
  EXPECT_EQ(r.errors[0].format(),
            "p.yaml:12:17: spec.classes[0].containers: defaultRequestsPerGpu.cpu 32 is above "
            "maxPerGpu.cpu 24000m (hint: every pod given the default would be refused; lower "
            "the default or raise the maximum)");
}

TEST(LoaderContainers, GuaranteedCannotComeFromDefaults) {
  auto r =
      load(doc(kClass + "    containers: {qos: Guaranteed, defaultRequestsPerGpu: {cpu: 4}}\n"));
  ASSERT_EQ(r.errors.size(), 1u) << testing::allErrors(r);
  EXPECT_EQ(r.errors[0].format(),
            "p.yaml:11:17: spec.classes[0].containers: qos: Guaranteed with "
            "defaultRequestsPerGpu (hint: the defaults write requests without limits, which a "
            "Guaranteed pod cannot have; add limitsFromRequests: [cpu, memory], drop "
            "defaultRequestsPerGpu, or use qos: Burstable)");
  // Copying both limits from the requests makes the defaulted containers Guaranteed.
  auto copied =
      load(doc(kClass + "    containers: {qos: Guaranteed, defaultRequestsPerGpu: {cpu: 4},\n"
                        "                 limitsFromRequests: [cpu, memory]}\n"));
  EXPECT_NE(copied.policy, nullptr) << testing::allErrors(copied);
}

TEST(LoaderContainers, QosValue) {
  auto r = load(doc(kClass + "    containers: {qos: guaranteed}\n"));
  expectError(r, "spec.classes[0].containers.qos",
              "p.yaml:11:23: spec.classes[0].containers.qos: unknown value 'guaranteed' (hint: "
              "did you mean 'Guaranteed'?)");
}

TEST(LoaderContainers, RequiredEnvEntries) {
  auto r = load(
      doc(kClass +
          "    containers: {requiredEnv: [{nam: X}, {name: \"A=B\"}, {name: C}, {name: C}]}\n"));
  expectError(r, "spec.classes[0].containers.requiredEnv[0].nam",
              "p.yaml:11:33: spec.classes[0].containers.requiredEnv[0].nam: unknown key 'nam' "
              "(hint: did you mean 'name'?)");
  expectError(r, "spec.classes[0].containers.requiredEnv[1].name",
              "p.yaml:11:49: spec.classes[0].containers.requiredEnv[1].name: invalid environment "
              "variable name 'A=B' (hint: a name has no '=', spaces or control characters, e.g. "
              "NVIDIA_DRIVER_CAPABILITIES)");
  expectError(r, "spec.classes[0].containers.requiredEnv[3].name",
              "p.yaml:11:75: spec.classes[0].containers.requiredEnv[3].name: 'C' is listed twice");
}

TEST(LoaderContainers, ForbiddenClassJudgesItsPodsWithoutGpus) {
  auto r =
      load(doc("  containers: {maxPerGpu: {cpu: 8}, defaultRequestsPerGpu: {cpu: 1}}\n"
               "  classes:\n"
               "  - name: cpu\n"
               "    match: {any: [{labelKeys: [k]}]}\n"
               "    containers: {requireRequests: [cpu], qos: Burstable}\n"));
  ASSERT_NE(r.policy, nullptr) << testing::allErrors(r);
  EXPECT_EQ(rulesOf(r).requireRequests, std::vector<std::string>{"cpu"});
  EXPECT_EQ(rulesOf(r).qos, QosClass::Burstable);
  // The default's rules per GPU do not reach a class without GPUs.
  EXPECT_TRUE(rulesOf(r).maxPerGpu.empty());
  EXPECT_TRUE(rulesOf(r).defaultRequestsPerGpu.empty());
}

TEST(LoaderContainers, ForbiddenClassRefusesRulesPerGpuAndAGpuPodScope) {
  auto r =
      load(doc("  classes:\n"
               "  - name: cpu\n"
               "    match: {any: [{labelKeys: [k]}]}\n"
               "    containers: {maxPerGpu: {cpu: 8}, appliesTo: gpuPods}\n"
               "  - name: cpu2\n"
               "    match: {any: [{labelKeys: [j]}]}\n"
               "    appliesTo: gpuPods\n"));
  expectError(r, "spec.classes[0].containers.maxPerGpu",
              "p.yaml:8:29: spec.classes[0].containers.maxPerGpu: maxPerGpu needs GPUs, but "
              "gpus.request is forbidden (hint: remove it, or let the class take GPUs "
              "(gpus.request: optional))");
  expectError(r, "spec.classes[0].containers.appliesTo",
              "p.yaml:8:50: spec.classes[0].containers.appliesTo: appliesTo: gpuPods judges no "
              "pod of a class whose gpus.request is forbidden (hint: remove appliesTo (the "
              "class's pods are judged))");
  expectError(r, "spec.classes[1].appliesTo",
              "p.yaml:11:16: spec.classes[1].appliesTo: appliesTo: gpuPods judges no pod of a "
              "class whose gpus.request is forbidden (hint: remove appliesTo (the class's pods "
              "are judged), or let the class take GPUs)");
}

TEST(LoaderContainers, ScopeOfTheClassOverTheDefaultsAndUnderItsContainers) {
  auto r = load(doc("  containers: {requireRequests: [cpu], appliesTo: gpuPods}\n" + kClass +
                    "    appliesTo: classPods\n"
                    "    gpus: {request: optional}\n"
                    "  - name: own\n"
                    "    match: {any: [{labelKeys: [o]}]}\n"
                    "    pools: [h100]\n"
                    "    appliesTo: classPods\n"
                    "    containers: {appliesTo: placedPods}\n"
                    "  - name: plain\n"
                    "    match: {any: [{labelKeys: [p]}]}\n"
                    "    pools: [h100]\n"));
  ASSERT_NE(r.policy, nullptr) << testing::allErrors(r);
  EXPECT_EQ(r.policy->classes[0].appliesTo, RuleScope::ClassPods);
  EXPECT_EQ(rulesOf(r, 0).appliesTo, RuleScope::ClassPods);   // the class's over the default's
  EXPECT_EQ(rulesOf(r, 1).appliesTo, RuleScope::PlacedPods);  // its containers' over the class's
  EXPECT_EQ(rulesOf(r, 2).appliesTo, RuleScope::GpuPods);     // the default's
  EXPECT_EQ(r.policy->classes[2].appliesTo, RuleScope::PlacedPods);
}

TEST(LoaderContainers, UnknownScopeNamesTheChoices) {
  auto r = load(doc(kClass + "    appliesTo: everyPod\n"));
  expectError(r, "spec.classes[0].appliesTo",
              "p.yaml:11:16: spec.classes[0].appliesTo: unknown value 'everyPod' (hint: expected "
              "one of: gpuPods, placedPods, classPods, allPods)");
}

TEST(LoaderContainers, ClusterDefaultWrittenTwice) {
  auto r = loadPolicySources({{"a.yaml", doc("  containers: {requireRequests: [cpu]}\n")},
                              {"b.yaml", doc("  containers: {requireLimits: [cpu]}\n", "b")}});
  expectError(r, "spec.containers",
              "b.yaml:5:15: spec.containers: 'spec.containers' is already set (hint: first set "
              "at a.yaml:5:15; set it in one document only)");
}

TEST(LoaderContainers, RuleExemptionsNameTheNewRules) {
  auto r =
      load(doc("  ruleExemptions:\n"
               "  - rules: [required-env-missing, qos-not-guaranteed, resources-per-gpu-exceeded,\n"
               "            container-resources-missing, limit-request-ratio-exceeded,\n"
               "            qos-best-effort, resource-requests-required]\n"
               "    images: [\"nvcr.io/nvidia/*\"]\n"
               "  - rules: [required-env-mising]\n"
               "    images: [\"nvcr.io/nvidia/*\"]\n"));
  ASSERT_EQ(r.errors.size(), 1u) << testing::allErrors(r);
  EXPECT_NE(r.errors[0].format().find("did you mean 'required-env-missing'?"), std::string::npos)
      << r.errors[0].format();
}

TEST(LoaderContainers, PerContainerMaximaDefaultsAndCopies) {
  auto r = load(doc(kClass + "    containers:\n"
                             "      maxPerContainer: {cpu: 32, memory: 256Gi}\n"
                             "      defaultRequests: {cpu: 250m, memory: 256Mi}\n"
                             "      limitsFromRequests: [memory, ephemeral-storage]\n"));
  ASSERT_NE(r.policy, nullptr) << testing::allErrors(r);
  const ContainerRules& c = rulesOf(r);
  EXPECT_EQ(c.maxPerContainer.at("memory").text, "256Gi");
  EXPECT_EQ(c.defaultRequests.at("cpu").value.milliValue(), 250);
  EXPECT_EQ(c.limitsFromRequests, (std::vector<std::string>{"memory", "ephemeral-storage"}));
  EXPECT_TRUE(c.writesDefaults());
}

TEST(LoaderContainers, PerContainerRulesRefuseWhatNoPodCouldPass) {
  expectError(load(doc(kClass + "    containers: {limitsFromRequests: [gpu, memory]}\n")),
              "spec.classes[0].containers.limitsFromRequests[0]",
              "p.yaml:11:39: spec.classes[0].containers.limitsFromRequests[0]: unknown resource "
              "'gpu' (hint: did you mean 'cpu'? (GPUs are governed by the class's gpus))");
  expectError(load(doc(kClass + "    containers: {defaultRequests: {ephemeral-storage: 1Gi}}\n")),
              "spec.classes[0].containers.defaultRequests.ephemeral-storage",
              "p.yaml:11:36: spec.classes[0].containers.defaultRequests.ephemeral-storage: "
              "unknown resource 'ephemeral-storage' (hint: expected cpu or memory (GPUs are "
              "governed by the class's gpus))");
  auto above = load(
      doc(kClass + "    containers: {defaultRequests: {cpu: 4}, maxPerContainer: {cpu: 2}}\n"));
  ASSERT_EQ(above.errors.size(), 1u) << testing::allErrors(above);
  EXPECT_EQ(above.errors[0].format(),
            "p.yaml:11:17: spec.classes[0].containers: defaultRequests.cpu 4 is above "
            "maxPerContainer.cpu 2 (hint: every container given the default would be refused; "
            "lower the default or raise the maximum)");
}

TEST(LoaderContainers, AllPodsIsForTheClusterDefaultAndNamespaceRules) {
  auto ok = load(doc("  containers: {appliesTo: allPods, requireLimits: [memory]}\n" + kClass));
  ASSERT_NE(ok.policy, nullptr) << testing::allErrors(ok);
  EXPECT_TRUE(ok.policy->allPodsJudged);
  EXPECT_EQ(ok.policy->allPodsRules.containers.requireLimits, std::vector<std::string>{"memory"});
  EXPECT_EQ(rulesOf(ok).requireLimits, std::vector<std::string>{"memory"});  // and classes
  auto none = load(doc(kClass));
  ASSERT_NE(none.policy, nullptr);
  EXPECT_FALSE(none.policy->allPodsJudged);
  expectError(load(doc(kClass + "    appliesTo: allPods\n")), "spec.classes[0].appliesTo",
              "p.yaml:11:16: spec.classes[0].appliesTo: appliesTo: allPods judges pods no class "
              "takes, which a class's rules never see (hint: use classPods for every pod of this "
              "class, or write the rule in spec.containers or spec.namespaceRules with "
              "appliesTo: allPods)");
  expectError(load(doc(kClass + "    containers: {appliesTo: allPods}\n")),
              "spec.classes[0].containers.appliesTo",
              "p.yaml:11:29: spec.classes[0].containers.appliesTo: appliesTo: allPods judges "
              "pods no class takes, which a class's rules never see (hint: use classPods for "
              "every pod of this class, or write the rule in spec.containers or "
              "spec.namespaceRules with appliesTo: allPods)");
}

}  // namespace
}  // namespace gpua::policy
