// Loading the isolation constructs (docs/policy-reference.md): CPU pools, pool matchExpressions,
// nodeSelector placement, field guards, priority tiers and checkpoint rules. Each error with
// its exact file:line:column, key path and hint.
#include <gtest/gtest.h>

#include "policy_test_support.hpp"

namespace gpua::policy {
namespace {

using testing::doc;
using testing::expectError;
using testing::load;

const std::string kPools =  // lines 5-12
    "  pools:\n"
    "  - name: h100\n"
    "    gpu: H100-80GB\n"
    "    nodeSelector: {gpu-admission.io/pool: h100}\n"
    "    matchExpressions:\n"
    "    - {key: nvidia.com/gpu.count, operator: Gt, values: [\"4\"]}\n"
    "  cpuPools:\n"
    "  - {name: etl, nodeSelector: {pool: etl}, taints: [{key: etl, effect: NoSchedule}]}\n";

TEST(LoaderIsolation, ValidConstructsLoad) {
  auto r = load(doc(kPools +
                    "  fieldGuards: {visibleDevicesEnv: false, voidNonGpuContainers: false}\n"
                    "  priorityTiers:\n"
                    "  - {name: gpu-training, value: 1000, requireCheckpoint: {volumes: [ck]}}\n"
                    "  - {name: gpu-dev, value: 10, preemptionPolicy: Never}\n"
                    "  classes:\n"
                    "  - name: batch\n"
                    "    match: {any: [{labelKeys: [spark-role]}]}\n"
                    "    cpuPools: [etl]\n"
                    "    priorityClassName: batch-low\n"
                    "  - name: train\n"
                    "    match: {any: [{labelKeys: [t]}]}\n"
                    "    pools: [h100]\n"
                    "    requireCheckpoint: {}\n"));
  ASSERT_NE(r.policy, nullptr) << testing::allErrors(r);
  const PolicySet& p = *r.policy;
  ASSERT_EQ(p.pools[0].matchExpressions.size(), 1u);
  EXPECT_EQ(p.pools[0].matchExpressions[0].describe(), "nvidia.com/gpu.count Gt 4");
  ASSERT_EQ(p.cpuPools.size(), 1u);
  EXPECT_TRUE(p.cpuPools[0].cpuOnly);
  EXPECT_EQ(p.cpuPools[0].taints[0].key, "etl");
  EXPECT_TRUE(p.fieldGuards.gpuPoolTargeting);
  EXPECT_FALSE(p.fieldGuards.visibleDevicesEnv);
  EXPECT_FALSE(p.fieldGuards.voidNonGpuContainers);
  ASSERT_EQ(p.priorityTiers.size(), 2u);
  EXPECT_EQ(p.priorityTiers[0].requireCheckpoint->volumes, std::vector<std::string>{"ck"});
  EXPECT_EQ(p.priorityTiers[1].preemptionPolicy, PriorityTier::Preemption::Never);
  EXPECT_EQ(p.classes[0].cpuPools, std::vector<std::string>{"etl"});
  EXPECT_EQ(p.classes[0].gpus.request, GpuRequest::Forbidden);
  EXPECT_TRUE(p.classes[1].requireCheckpoint.has_value());
}

TEST(LoaderIsolation, UnknownOperatorSuggestsTheNearest) {
  auto r =
      load(doc("  pools:\n"
               "  - name: h100\n"
               "    gpu: H100-80GB\n"
               "    matchExpressions: [{key: k, operator: GT, values: [\"4\"]}]\n"));
  expectError(r, "spec.pools[0].matchExpressions[0].operator",
              "p.yaml:8:43: spec.pools[0].matchExpressions[0].operator: unknown value 'GT' "
              "(hint: did you mean 'Gt'?)");
}

TEST(LoaderIsolation, GtNeedsOneInteger) {
  auto r =
      load(doc("  pools:\n"
               "  - name: h100\n"
               "    gpu: H100-80GB\n"
               "    matchExpressions: [{key: k, operator: Lt, values: [four]}]\n"));
  expectError(r, "spec.pools[0].matchExpressions[0].values",
              "p.yaml:8:55: spec.pools[0].matchExpressions[0].values: operator Lt needs exactly "
              "one integer value (hint: e.g. {key: nvidia.com/gpu.count, operator: Lt, values: "
              "[\"4\"]})");
}

TEST(LoaderIsolation, ExistsTakesNoValues) {
  auto r =
      load(doc("  pools:\n"
               "  - name: h100\n"
               "    gpu: H100-80GB\n"
               "    matchExpressions: [{key: k, operator: Exists, values: [a]}]\n"));
  expectError(r, "spec.pools[0].matchExpressions[0].values",
              "p.yaml:8:59: spec.pools[0].matchExpressions[0].values: operator Exists takes no "
              "values");
}

// Kubernetes accepts an empty label value in node affinity (as in nodeSelector {k: ""}): a pool
// selects nodes whose label is set to "" with `In [""]`, and excludes them with `NotIn [""]`.
TEST(LoaderIsolation, PoolExpressionsAcceptAnEmptyLabelValue) {
  auto r =
      load(doc("  pools:\n"
               "  - name: h100\n"
               "    gpu: H100-80GB\n"
               "    matchExpressions:\n"
               "    - {key: node-role.kubernetes.io/gpu-worker, operator: In, values: [\"\"]}\n"
               "    - {key: example.com/tier, operator: Exists}\n"
               "    - {key: example.com/tier, operator: NotIn, values: [\"\", old]}\n"));
  ASSERT_NE(r.policy, nullptr) << testing::allErrors(r);
  const auto& exprs = r.policy->pools[0].matchExpressions;
  ASSERT_EQ(exprs.size(), 3u);
  EXPECT_EQ(exprs[0].values, std::vector<std::string>{""});
  EXPECT_EQ(exprs[0].describe(), "node-role.kubernetes.io/gpu-worker In [\"\"]");
  EXPECT_EQ(exprs[2].values, (std::vector<std::string>{"", "old"}));
  EXPECT_EQ(exprs[2].describe(), "example.com/tier NotIn [\"\", old]");
}

// The same for namespace selectors: `In [""]` selects namespaces whose label is set and empty.
TEST(LoaderIsolation, NamespaceSelectorExpressionsAcceptAnEmptyLabelValue) {
  auto r =
      load(doc("  pools: [{name: h100, gpu: H100-80GB}]\n"
               "  rollout:\n"
               "  - namespaces: {matchExpressions: [{key: env, operator: In, values: [\"\"]}]}\n"
               "    mode: warn\n"));
  ASSERT_NE(r.policy, nullptr) << testing::allErrors(r);
  const auto& selector = *r.policy->rollout.at(0).namespaces;
  EXPECT_TRUE(selector.matches("a", {{"env", ""}}));
  EXPECT_FALSE(selector.matches("a", {{"env", "dev"}}));
  EXPECT_FALSE(selector.matches("a", {}));
}

// The empty value is a value; an empty list is still no values.
TEST(LoaderIsolation, InStillNeedsValues) {
  auto r =
      load(doc("  pools:\n"
               "  - name: h100\n"
               "    gpu: H100-80GB\n"
               "    matchExpressions: [{key: k, operator: In, values: []}]\n"));
  expectError(r, "spec.pools[0].matchExpressions[0].values",
              "p.yaml:8:24: spec.pools[0].matchExpressions[0].values: operator In needs values");
}

TEST(LoaderIsolation, CpuPoolUnknownKeyHasDidYouMean) {
  auto r =
      load(doc("  cpuPools:\n"
               "  - {name: etl, nodeSelectr: {a: b}}\n"));
  expectError(r, "spec.cpuPools[0].nodeSelectr",
              "p.yaml:6:17: spec.cpuPools[0].nodeSelectr: unknown key 'nodeSelectr' (hint: did "
              "you mean 'nodeSelector'?)");
}

TEST(LoaderIsolation, CpuPoolThatSelectsNothing) {
  auto r =
      load(doc("  cpuPools:\n"
               "  - {name: etl}\n"));
  expectError(r, "spec.cpuPools[0]",
              "p.yaml:6:5: spec.cpuPools[0]: CPU pool 'etl' selects no nodes (hint: give it a "
              "nodeSelector, matchExpressions or taints)");
}

TEST(LoaderIsolation, CpuPoolNameClashesWithAGpuPool) {
  auto r = load(doc(kPools + "  - {name: h100, nodeSelector: {a: b}}\n"));
  expectError(r, "spec.cpuPools[1].name",
              "p.yaml:13:12: spec.cpuPools[1].name: duplicate pool 'h100' (hint: first defined "
              "at p.yaml:6:11; GPU and CPU pools share one namespace of names)");
}

TEST(LoaderIsolation, ClassNamesAGpuPoolAsCpuPool) {
  auto r = load(doc(kPools + "  classes:\n"
                             "  - name: batch\n"
                             "    match: {any: [{labelKeys: [s]}]}\n"
                             "    cpuPools: [h100]\n"));
  expectError(r, "spec.classes[0].cpuPools[0]",
              "p.yaml:16:16: spec.classes[0].cpuPools[0]: unknown CPU pool 'h100' (hint: 'h100' "
              "is a GPU pool (spec.pools); list it under the class's pools)");
}

TEST(LoaderIsolation, MisspeltCpuPool) {
  auto r = load(doc(kPools + "  classes:\n"
                             "  - name: batch\n"
                             "    match: {any: [{labelKeys: [s]}]}\n"
                             "    cpuPools: [etk]\n"));
  expectError(r, "spec.classes[0].cpuPools[0]",
              "p.yaml:16:16: spec.classes[0].cpuPools[0]: unknown CPU pool 'etk' (hint: did you "
              "mean 'etl'?)");
}

TEST(LoaderIsolation, CpuPoolsNeedAClassThatAllowsCpuPods) {
  auto r = load(doc(kPools + "  classes:\n"
                             "  - name: t\n"
                             "    match: {any: [{labelKeys: [s]}]}\n"
                             "    pools: [h100]\n"
                             "    cpuPools: [etl]\n"));
  expectError(r, "spec.classes[0].cpuPools",
              "p.yaml:17:15: spec.classes[0].cpuPools: cpuPools need a class whose pods may ask "
              "for no GPU, but gpus.request is required (hint: set gpus.request: optional (GPU "
              "pods go to pools, CPU pods to cpuPools) or forbidden)");
}

TEST(LoaderIsolation, PlacementValuesAndDidYouMean) {
  auto r = load(doc(kPools + "  classes:\n"
                             "  - name: t\n"
                             "    match: {any: [{labelKeys: [s]}]}\n"
                             "    pools: [h100]\n"
                             "    placement: {via: nodeselector}\n"));
  expectError(r, "spec.classes[0].placement.via",
              "p.yaml:17:22: spec.classes[0].placement.via: unknown value 'nodeselector' (hint: "
              "did you mean 'nodeSelector'?)");
}

TEST(LoaderIsolation, OnConflictNeedsNodeSelectorPlacement) {
  auto r = load(doc(kPools + "  classes:\n"
                             "  - name: t\n"
                             "    match: {any: [{labelKeys: [s]}]}\n"
                             "    pools: [h100]\n"
                             "    placement: {onConflict: overwrite}\n"));
  expectError(r, "spec.classes[0].placement.onConflict",
              "p.yaml:17:29: spec.classes[0].placement.onConflict: onConflict needs via: "
              "nodeSelector (hint: with node affinity the pool is ANDed into the pod's terms; a "
              "contradicting nodeSelector is a placement conflict)");
}

TEST(LoaderIsolation, NodeSelectorPlacementCannotExpressOperators) {
  auto r = load(doc(kPools + "  classes:\n"
                             "  - name: t\n"
                             "    match: {any: [{labelKeys: [s]}]}\n"
                             "    pools: [h100]\n"
                             "    placement: {via: nodeSelector}\n"));
  expectError(r, "spec.classes[0].placement",
              "p.yaml:17:16: spec.classes[0].placement: placement via nodeSelector cannot "
              "express pool h100's matchExpressions (nvidia.com/gpu.count Gt 4) (hint: use via: "
              "nodeAffinity, or give the pool only nodeSelector labels)");
}

TEST(LoaderIsolation, NodeSelectorPlacementCannotChooseBetweenPools) {
  auto r =
      load(doc("  pools:\n"
               "  - {name: a, gpu: H100-80GB, nodeSelector: {p: a}}\n"
               "  - {name: b, gpu: H100-80GB, nodeSelector: {p: b}}\n"
               "  classes:\n"
               "  - name: t\n"
               "    match: {any: [{labelKeys: [s]}]}\n"
               "    pools: [a, b]\n"
               "    placement: {via: nodeSelector, onConflict: deny}\n"));
  expectError(r, "spec.classes[0].placement",
              "p.yaml:12:16: spec.classes[0].placement: placement via nodeSelector cannot choose "
              "between the 2 pools of class t (hint: a nodeSelector is one set of labels; use "
              "via: nodeAffinity, or split the class)");
}

TEST(LoaderIsolation, FieldGuardsAreStrict) {
  auto r = load(doc("  fieldGuards: {gpuPoolTargetting: false}\n"));
  expectError(r, "spec.fieldGuards.gpuPoolTargetting",
              "p.yaml:5:17: spec.fieldGuards.gpuPoolTargetting: unknown key 'gpuPoolTargetting' "
              "(hint: did you mean 'gpuPoolTargeting'?)");
  auto twice = load(doc("  fieldGuards: {visibleDevicesEnv: yes}\n"));
  expectError(twice, "spec.fieldGuards.visibleDevicesEnv",
              "p.yaml:5:36: spec.fieldGuards.visibleDevicesEnv: expected true or false, got "
              "\"yes\"");
}

TEST(LoaderIsolation, PriorityTierErrors) {
  auto r =
      load(doc("  priorityTiers:\n"
               "  - {name: a, value: 10, preemptionPolicy: never}\n"
               "  - {name: a, value: 20}\n"
               "  - {name: system-x, value: 2000000000}\n"
               "  - {name: b, value: 1, requireCheckpoint: {volume: [x]}}\n"));
  expectError(r, "spec.priorityTiers[0].preemptionPolicy",
              "p.yaml:6:44: spec.priorityTiers[0].preemptionPolicy: unknown value 'never' (hint: "
              "did you mean 'Never'?)");
  expectError(r, "spec.priorityTiers[1].name",
              "p.yaml:7:12: spec.priorityTiers[1].name: duplicate priority tier 'a' (hint: first "
              "defined at p.yaml:6:12; names must be unique)");
  expectError(r, "spec.priorityTiers[2].value",
              "p.yaml:8:29: spec.priorityTiers[2].value: must be at most 1000000000, got "
              "2000000000 (hint: values above one billion are reserved for system-* priority "
              "classes)");
  expectError(r, "spec.priorityTiers[3].requireCheckpoint.volume",
              "p.yaml:9:45: spec.priorityTiers[3].requireCheckpoint.volume: unknown key 'volume' "
              "(hint: did you mean 'volumes'?)");
}

TEST(LoaderIsolation, MissingTierValue) {
  auto r =
      load(doc("  priorityTiers:\n"
               "  - {name: a}\n"));
  expectError(r, "spec.priorityTiers[0].value",
              "p.yaml:6:5: spec.priorityTiers[0].value: missing required field 'value'");
}

}  // namespace
}  // namespace gpua::policy
