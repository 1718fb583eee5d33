// Requirement keys (docs/policy-reference.md): effects (require instead of fix), allowed runtime
// classes, requirePriorityClass, namespaceRules, image patterns in match rules, exempt.images
// and ruleExemptions. Each error has file:line:col, the key path and a hint.
#include <gtest/gtest.h>

#include "policy_test_support.hpp"

namespace gpua::policy {
namespace {

using testing::doc;
using testing::expectError;
using testing::load;

const std::string kPoolAndClass =  // lines 5-10
    "  pools:\n"
    "  - {name: p, gpu: H100-80GB, runtimeClassName: nvidia}\n"
    "  classes:\n"
    "  - name: c\n"
    "    match: {any: [{labels: {a: b}}]}\n"
    "    pools: [p]\n";

TEST(LoaderRequirements, ClassEffectsOverrideTheClusterDefaultPerEffect) {
  auto r = load(doc("  effects: {toleration: require, runtimeClass: require}\n" + kPoolAndClass +
                    "    priorityClassName: gpu-c\n"
                    "    effects: {runtimeClass: mutate, priorityClass: require}\n"
                    "  - name: d\n"
                    "    match: {any: [{labels: {a: d}}]}\n"
                    "    pools: [p]\n"
                    "    effects: require\n"
                    "    allowedRuntimeClasses: [nvidia-cdi]\n"
                    "    requirePriorityClass: true\n"));
  ASSERT_NE(r.policy, nullptr) << testing::allErrors(r);
  const auto& c = r.policy->classes[0].effects;
  EXPECT_EQ(c.toleration, EffectMode::Require);     // cluster default
  EXPECT_EQ(c.runtimeClass, EffectMode::Mutate);    // the class's own
  EXPECT_EQ(c.priorityClass, EffectMode::Require);  // the class's own
  EXPECT_EQ(c.nodePlacement, EffectMode::Mutate);   // neither: mutate
  const auto& d = r.policy->classes[1];
  EXPECT_EQ(d.effects.resourceName, EffectMode::Require);
  EXPECT_EQ(d.effects.nodePlacement, EffectMode::Require);
  EXPECT_EQ(d.allowedRuntimeClasses, std::vector<std::string>{"nvidia-cdi"});
  EXPECT_TRUE(d.requirePriorityClass);
}

TEST(LoaderRequirements, ClassEffectsResolveAgainstADefaultInAnotherFile) {
  auto r = loadPolicySources(
      {{"a.yaml", doc(kPoolAndClass)}, {"b.yaml", doc("  effects: require\n", "other")}});
  ASSERT_NE(r.policy, nullptr) << testing::allErrors(r);
  EXPECT_EQ(r.policy->classes[0].effects.toleration, EffectMode::Require);
}

TEST(LoaderRequirements, MisspeltEffectKeyAndMode) {
  auto r =
      load(doc(kPoolAndClass + "    effects: {tolerations: require, nodePlacement: requre}\n"));
  expectError(r, "spec.classes[0].effects.tolerations",
              "p.yaml:11:15: spec.classes[0].effects.tolerations: unknown key 'tolerations' "
              "(hint: did you mean 'toleration'?)");
  expectError(r, "spec.classes[0].effects.nodePlacement",
              "p.yaml:11:52: spec.classes[0].effects.nodePlacement: unknown value 'requre' "
              "(hint: did you mean 'require'?)");
}

TEST(LoaderRequirements, EffectsWrittenTwiceAcrossFiles) {
  auto r = loadPolicySources(
      {{"a.yaml", doc("  effects: require\n")}, {"b.yaml", doc("  effects: mutate\n", "b")}});
  expectError(r, "spec.effects",
              "b.yaml:5:12: spec.effects: 'spec.effects' is already set (hint: first set at "
              "a.yaml:5:12; set it in one document only)");
}

TEST(LoaderRequirements, RequiredPriorityClassNeedsAName) {
  auto r = load(doc(kPoolAndClass + "    effects: {priorityClass: require}\n"));
  expectError(r, "spec.classes[0].effects.priorityClass",
              "p.yaml:11:14: spec.classes[0].effects.priorityClass: priorityClass: require needs "
              "priorityClassName (hint: set priorityClassName, or use requirePriorityClass: true "
              "to demand any allowed class)");
}

TEST(LoaderRequirements, MisspeltClassKeys) {
  auto r = load(doc(kPoolAndClass + "    allowedRuntimeClass: [nvidia]\n"));
  expectError(r, "spec.classes[0].allowedRuntimeClass",
              "p.yaml:11:5: spec.classes[0].allowedRuntimeClass: unknown key "
              "'allowedRuntimeClass' (hint: did you mean 'allowedRuntimeClasses'?)");
}

TEST(LoaderRequirements, ImagePatternsInMatchRulesAndExemptions) {
  auto r = load(
      doc("  exempt: {images: [nvcr.io/nvidia/k8s/cuda-sample:*, nvcr.io/nvidia/cloud-native/*]}\n"
          "  ruleExemptions:\n"
          "  - {rules: [max-per-container], images: [nvcr.io/nvidia/tritonserver:*]}\n"
          "  - {images: [busybox], namespaces: [sandbox]}\n"
          "  skip:\n"
          "  - {name: dcgm, match: {images: [nvcr.io/nvidia/k8s/dcgm-exporter*]}}\n"));
  ASSERT_NE(r.policy, nullptr) << testing::allErrors(r);
  EXPECT_EQ(r.policy->exemptImages.size(), 2u);
  EXPECT_FALSE(r.policy->hasExemptions);  // no namespaces are exempt
  ASSERT_EQ(r.policy->ruleExemptions.size(), 2u);
  EXPECT_EQ(r.policy->ruleExemptions[0].rules, std::vector<std::string>{"max-per-container"});
  EXPECT_TRUE(r.policy->ruleExemptions[1].rules.empty());
  EXPECT_TRUE(r.policy->ruleExemptions[1].namespaces.has_value());
  EXPECT_EQ(r.policy->skip[0].match.images,
            std::vector<std::string>{"nvcr.io/nvidia/k8s/dcgm-exporter*"});
}

TEST(LoaderRequirements, BadImagePatterns) {
  auto r =
      load(doc("  exempt: {images: [\"nvcr.io/*/pytorch\", \"https://nvcr.io/x\"]}\n"
               "  skip:\n"
               "  - {name: s, match: {images: []}}\n"));
  expectError(r, "spec.exempt.images[0]",
              "p.yaml:5:21: spec.exempt.images[0]: '*' is only allowed at the end of an image "
              "pattern (a prefix): 'nvcr.io/*/pytorch' (hint: write an image exactly "
              "(nvcr.io/nvidia/pytorch:24.01-py3) or a prefix ending in '*' (nvcr.io/nvidia/*))");
  expectError(r, "spec.exempt.images[1]",
              "p.yaml:5:42: spec.exempt.images[1]: an image reference has no URL scheme: "
              "'https://nvcr.io/x' (hint: write an image exactly "
              "(nvcr.io/nvidia/pytorch:24.01-py3) or a prefix ending in '*' (nvcr.io/nvidia/*))");
  expectError(r, "spec.skip[0].match.images",
              "p.yaml:7:31: spec.skip[0].match.images: empty image list (hint: list images "
              "(exact, or a prefix ending in '*'))");
}

TEST(LoaderRequirements, RuleExemptionNamesAKnownRule) {
  auto r =
      load(doc("  ruleExemptions:\n"
               "  - rules: [max-per-containr]\n"
               "    images: [nvcr.io/nvidia/*]\n"
               "  - {rules: [quota]}\n"));
  expectError(r, "spec.ruleExemptions[0].rules[0]",
              "p.yaml:6:13: spec.ruleExemptions[0].rules[0]: unknown rule 'max-per-containr' "
              "(hint: did you mean 'max-per-container'?)");
  expectError(r, "spec.ruleExemptions[1]",
              "p.yaml:8:5: spec.ruleExemptions[1]: a rule exemption needs images, namespaces or "
              "both (hint: images: pods whose every container runs one; namespaces: pods in "
              "those namespaces)");
}

TEST(LoaderRequirements, NamespaceRules) {
  auto ok =
      load(doc("  namespaceRules:\n"
               "  - namespaces: {matchLabels: {team: vision}}\n"
               "    priorityClassNames: [gpu-training-low]\n"
               "    runtimeClassNames: [nvidia]\n"
               "  - {namespaces: [prod], requirePriorityClass: true}\n"));
  ASSERT_NE(ok.policy, nullptr) << testing::allErrors(ok);
  ASSERT_EQ(ok.policy->namespaceRules.size(), 2u);
  EXPECT_EQ(ok.policy->namespaceRules[0].priorityClassNames,
            std::vector<std::string>{"gpu-training-low"});
  EXPECT_TRUE(ok.policy->namespaceRules[1].requirePriorityClass);
  auto bad =
      load(doc("  namespaceRules:\n"
               "  - {namespaces: [prod]}\n"
               "  - {namespace: [prod], priorityClassNames: [x]}\n"));
  expectError(bad, "spec.namespaceRules[0]",
              "p.yaml:6:5: spec.namespaceRules[0]: namespace rule sets nothing (hint: set "
              "priorityClassNames, runtimeClassNames, requirePriorityClass or requiredLabels)");
  expectError(bad, "spec.namespaceRules[1].namespace",
              "p.yaml:7:6: spec.namespaceRules[1].namespace: unknown key 'namespace' (hint: did "
              "you mean 'namespaces'?)");
}

TEST(LoaderRequirements, RequiredLabelsAndPlacementGuards) {
  auto ok =
      load(doc("  fieldGuards:\n"
               "    forbidNodeName: true\n"
               "    forbidTolerations: [nvidia.com/gpu]\n"
               "  namespaceRules:\n"
               "  - namespaces: [prod]\n"
               "    requiredLabels: [team, {key: tier, values: [gold, \"\"]}]\n"
               "  ruleExemptions:\n"
               "  - {rules: [node-name-forbidden], namespaces: [ops]}\n"));
  ASSERT_NE(ok.policy, nullptr) << testing::allErrors(ok);
  EXPECT_TRUE(ok.policy->fieldGuards.forbidNodeName);
  EXPECT_TRUE(ok.policy->fieldGuards.guardsPlacement());
  const auto& labels = ok.policy->namespaceRules[0].requiredLabels;
  ASSERT_EQ(labels.size(), 2u);
  EXPECT_EQ(labels[1].values, (std::vector<std::string>{"gold", ""}));
  EXPECT_TRUE(ok.policy->ruleExemptions[0].images.empty());

  auto bad =
      load(doc("  fieldGuards:\n"
               "    forbidTolerations: [nvidia.com/gpu, nvidia.com/gpu]\n"
               "  namespaceRules:\n"
               "  - namespaces: [prod]\n"
               "    requiredLabels: [team, team, {key: tier, values: []}]\n"));
  expectError(bad, "spec.fieldGuards.forbidTolerations[1]",
              "p.yaml:6:41: spec.fieldGuards.forbidTolerations[1]: 'nvidia.com/gpu' is listed "
              "twice");
  expectError(bad, "spec.namespaceRules[0].requiredLabels[1]",
              "p.yaml:9:28: spec.namespaceRules[0].requiredLabels[1]: label 'team' is listed "
              "twice");
  expectError(bad, "spec.namespaceRules[0].requiredLabels[2].values",
              "p.yaml:9:54: spec.namespaceRules[0].requiredLabels[2].values: empty value list "
              "(hint: list the allowed values, or omit values to accept any)");
}

}  // namespace
}  // namespace gpua::policy
