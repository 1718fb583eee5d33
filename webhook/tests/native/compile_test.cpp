// The compiler's output for the shipped policy is pinned by golden files (regenerate with
// GPUA_UPDATE_GOLDEN=1 after a deliberate change, and read the diff); that the output is
// accepted by a real apiserver and agrees with the webhook pod by pod is the live suite's
// (testcluster/live/native_backstop_test.go).
#include "native/compile.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "native/rules_cel.hpp"
#include "native_test_support.hpp"
#include "policy/loader.hpp"
#include "policy/rule_ids.hpp"

namespace gpua::native {
namespace {

using testing::load;

const char* const kPolicy = R"(apiVersion: gpu-admission.io/v1
kind: GpuPolicy
metadata: {name: t}
spec:
  pools:
  - {name: h100, gpu: H100-80GB, nodeSelector: {pool: h100}}
  classes:
  - name: training
    match: {any: [{labels: {gpu-admission.io/class: training}}]}
    pools: [h100]
    gpus: {maxPerPod: 8}
  rollout:
  - {namespaces: {matchLabels: {env: dev}}, mode: enforce}
  - {namespaces: {matchLabels: {env: audit}}, mode: audit}
  - {mode: warn}
)";

std::string fileNamed(const NativeOutput& out, const std::string& name) {
  for (const auto& [n, text] : out.files)
    if (n == name) return text;
  ADD_FAILURE() << "no file " << name;
  return {};
}

TEST(CompileNative, TheSamePolicyGivesTheSameBytes) {
  const auto a = compileNative(load(kPolicy));
  const auto b = compileNative(load(kPolicy));
  EXPECT_EQ(a.files, b.files);
  ASSERT_FALSE(a.files.empty());
}

// The file names of the output that start with `prefix`, in order.
std::vector<std::string> namesStarting(const NativeOutput& out, const std::string& prefix) {
  std::vector<std::string> names;
  for (const auto& [n, text] : out.files)
    if (n.rfind(prefix, 0) == 0) names.push_back(n);
  return names;
}

TEST(CompileNative, OnePolicyAndBindingPerReachableRolloutMode) {
  const auto out = compileNative(load(kPolicy));
  EXPECT_EQ(
      namesStarting(out, "validating-"),
      (std::vector<std::string>{"validating-policy-enforce.yaml", "validating-binding-enforce.yaml",
                                "validating-policy-warn.yaml", "validating-binding-warn.yaml",
                                "validating-policy-audit.yaml", "validating-binding-audit.yaml"}));
  EXPECT_NE(
      fileNamed(out, "validating-binding-enforce.yaml").find("validationActions:\n    - \"Deny\""),
      std::string::npos);
  EXPECT_NE(fileNamed(out, "validating-binding-warn.yaml").find("- \"Warn\""), std::string::npos);
  EXPECT_NE(fileNamed(out, "validating-binding-audit.yaml").find("- \"Audit\""), std::string::npos);
  // A CEL error must not let a pod through where the policy enforces, nor stop one where it
  // only reports.
  EXPECT_NE(fileNamed(out, "validating-policy-enforce.yaml").find("failurePolicy: \"Fail\""),
            std::string::npos);
  EXPECT_NE(fileNamed(out, "validating-policy-warn.yaml").find("failurePolicy: \"Ignore\""),
            std::string::npos);
}

TEST(CompileNative, EachCompiledMutationIsAPolicyAndItsBinding) {
  const auto out = compileNative(load(kPolicy));
  EXPECT_EQ(namesStarting(out, "mutating-"),
            (std::vector<std::string>{
                "mutating-policy-resources.yaml", "mutating-binding-resources.yaml",
                "mutating-policy-placement.yaml", "mutating-binding-placement.yaml",
                "mutating-policy-visible-devices.yaml", "mutating-binding-visible-devices.yaml",
                "mutating-policy-annotations.yaml", "mutating-binding-annotations.yaml"}));
  const std::string map = fileNamed(out, "mutating-policy-placement.yaml");
  EXPECT_NE(map.find("failurePolicy: \"Ignore\""), std::string::npos);
  EXPECT_NE(map.find("patchType: \"JSONPatch\""), std::string::npos);
  EXPECT_EQ(map.find("cel.bind"), std::string::npos) << "Kubernetes has no cel.bind";
  EXPECT_NE(fileNamed(out, "mutating-binding-placement.yaml")
                .find("policyName: \"gpu-admission-placement\""),
            std::string::npos);
}

TEST(CompileNative, ObserveModeGetsNoPolicy) {
  std::string yaml = kPolicy;
  yaml.replace(yaml.find("  rollout:"), std::string::npos, "  rollout:\n  - {mode: observe}\n");
  const auto out = compileNative(load(yaml));
  EXPECT_TRUE(out.files.empty());
}

TEST(CompileNative, NoCatchAllMeansTheRestIsEnforced) {
  std::string yaml = kPolicy;
  yaml.replace(yaml.find("  rollout:"), std::string::npos,
               "  rollout:\n  - {namespaces: {matchLabels: {env: dev}}, mode: warn}\n");
  const auto out = compileNative(load(yaml));
  EXPECT_EQ(
      namesStarting(out, "validating-policy-"),
      (std::vector<std::string>{"validating-policy-enforce.yaml", "validating-policy-warn.yaml"}));
}

TEST(CompileNative, EveryRuleOfTheEngineIsReportedOnceWithWhy) {
  const auto out = compileNative(load(kPolicy));
  const auto& known = policy::knownRuleIds();
  ASSERT_EQ(out.rules.size(), known.size());
  std::set<std::string> compiled(compiledRuleIds().begin(), compiledRuleIds().end());
  for (std::size_t i = 0; i < known.size(); ++i) {
    const auto& r = out.rules[i];
    EXPECT_EQ(r.rule, known[i]);
    EXPECT_EQ(r.compiled, compiled.count(r.rule) == 1) << r.rule;
    if (r.compiled) {
      EXPECT_FALSE(r.where.empty()) << r.rule;
    } else {
      EXPECT_FALSE(r.why.empty()) << r.rule;
    }
  }
  const auto quota = std::find_if(out.rules.begin(), out.rules.end(),
                                  [](const RuleReport& r) { return r.rule == "quota"; });
  ASSERT_NE(quota, out.rules.end());
  EXPECT_NE(quota->why.find("reads other objects"), std::string::npos);
}

TEST(CompileNative, TheReportHeadsEveryFile) {
  const auto out = compileNative(load(kPolicy));
  for (const auto& [name, text] : out.files) {
    EXPECT_EQ(text.rfind("# Generated by gpu-admission compile --to native", 0), 0u) << name;
    EXPECT_NE(text.find("#   quota: reads other objects"), std::string::npos) << name;
  }
}

TEST(CompileNative, SpecDraIsAListedLimitation) {
  std::string withDra = kPolicy;
  withDra.replace(
      withDra.find("spec:\n"), 6,
      "spec:\n  dra: {deviceClasses: [{name: gpu.nvidia.com, countsAs: nvidia.com/gpu}]}\n");
  const auto out = compileNative(load(withDra));
  for (const auto& [name, text] : out.files)
    EXPECT_NE(text.find("spec.dra is not compiled"), std::string::npos) << name;
  EXPECT_EQ(compileNative(load(kPolicy)).files.front().second.find("spec.dra"), std::string::npos);
}

TEST(CompileNative, AnImageMatcherCompiles) {
  std::string yaml = kPolicy;
  yaml.replace(yaml.find("{labels: {gpu-admission.io/class: training}}"),
               std::string("{labels: {gpu-admission.io/class: training}}").size(),
               "{images: [\"nvcr.io/*\"]}");
  const auto out = compileNative(load(yaml));
  ASSERT_FALSE(out.files.empty());
  for (const auto& r : out.rules) {
    if (r.rule == policy::rules::kMaxPerPod) {
      EXPECT_TRUE(r.compiled) << r.why;
    }
  }
}

TEST(CompileNative, ADeviceClassMatcherLeavesTheClassRulesOutAndSaysWhy) {
  std::string yaml = kPolicy;
  yaml.replace(
      yaml.find("spec:\n"), 6,
      "spec:\n  dra: {deviceClasses: [{name: gpu.nvidia.com, countsAs: nvidia.com/gpu}]}\n");
  yaml.replace(yaml.find("{labels: {gpu-admission.io/class: training}}"),
               std::string("{labels: {gpu-admission.io/class: training}}").size(),
               "{deviceClasses: [gpu.nvidia.com]}");
  const auto out = compileNative(load(yaml));
  EXPECT_TRUE(out.files.empty());
  for (const auto& r : out.rules) {
    EXPECT_FALSE(r.compiled) << r.rule;
    if (r.rule == policy::rules::kMaxPerPod) {
      EXPECT_NE(r.why.find("class training match rule 1 matches DRA device classes"),
                std::string::npos)
          << r.why;
    }
  }
}

TEST(CompileNative, TheDenialCarriesTheWebhooksWords) {
  const auto out = compileNative(load(kPolicy));
  const std::string vap = fileNamed(out, "validating-policy-enforce.yaml");
  // engine/validate/validate_class.cpp checkMaxPerPod() and engine/verdict firstWithCount().
  EXPECT_NE(vap.find("allows at most 8 per pod: split the job across more pods"),
            std::string::npos);
  EXPECT_NE(vap.find(R"(\" (and \" + string(size(variables.violations) - 1) + \" more)\")"),
            std::string::npos);
  EXPECT_EQ(vap.find("cel.bind"), std::string::npos) << "Kubernetes has no cel.bind";
}

TEST(CompileNative, APriorityClassIsWrittenByAMutatingAdmissionPolicy) {
  EXPECT_TRUE(namesStarting(compileNative(load(kPolicy)), "mutating-policy-priority").empty())
      << "no class sets a priority class";
  std::string yaml = kPolicy;
  yaml.replace(yaml.find("    gpus: {maxPerPod: 8}"), 0, "    priorityClassName: gpu-training\n");
  const auto out = compileNative(load(yaml));
  const std::string map = fileNamed(out, "mutating-policy-priority.yaml");
  EXPECT_NE(map.find("kind: \"MutatingAdmissionPolicy\""), std::string::npos);
  EXPECT_NE(map.find("reinvocationPolicy: \"IfNeeded\""), std::string::npos);
  // As engine/mutate/mutate_priority: the class's name, and the plugin's value removed.
  EXPECT_NE(map.find(R"(variables.cls == \"training\" && variables.hasGpu)"), std::string::npos);
  EXPECT_NE(map.find(R"(JSONPatch{op: \"remove\", path: \"/spec/priority\"})"), std::string::npos);
  EXPECT_NE(fileNamed(out, "mutating-binding-priority.yaml")
                .find("policyName: \"gpu-admission-priority\""),
            std::string::npos);
}

TEST(CompileNative, ExemptNamespacesAreLeftOutBeforeAnyCelRuns) {
  std::string yaml = kPolicy;
  yaml.replace(yaml.find("spec:\n"), 6,
               "spec:\n  exempt:\n    namespaces:\n      names: [kube-system]\n"
               "      matchLabels: {off: \"yes\"}\n");
  const auto out = compileNative(load(yaml));
  const std::string vap = fileNamed(out, "validating-policy-enforce.yaml");
  EXPECT_NE(vap.find("    namespaceSelector:\n      matchExpressions:\n"
                     "        - key: \"kubernetes.io/metadata.name\"\n"
                     "          operator: \"NotIn\"\n          values:\n"
                     "            - \"kube-system\"\n        - key: \"off\"\n"
                     "          operator: \"NotIn\"\n"),
            std::string::npos)
      << vap.substr(vap.find("matchConstraints"), 400);
}

// The shipped policy, byte for byte.
TEST(CompileNative, ShippedPolicyMatchesTheGoldenFiles) {
  const auto loaded = policy::loadPolicyPaths({GPUA_POLICIES_DIR});
  ASSERT_TRUE(loaded.ok());
  const auto out = compileNative(*loaded.policy);
  ASSERT_FALSE(out.files.empty());
  const std::filesystem::path dir = GPUA_NATIVE_GOLDEN_DIR;
  const bool update = std::getenv("GPUA_UPDATE_GOLDEN") != nullptr;
  for (const auto& [name, text] : out.files) {
    const auto file = dir / name;
    if (update) {
      std::filesystem::create_directories(dir);
      std::ofstream(file, std::ios::binary) << text;
      continue;
    }
    std::ifstream in(file, std::ios::binary);
    ASSERT_TRUE(in) << file << " is missing: run with GPUA_UPDATE_GOLDEN=1";
    std::stringstream golden;
    golden << in.rdbuf();
    const std::string want = golden.str();
    std::size_t at = 0;
    while (at < text.size() && at < want.size() && text[at] == want[at]) ++at;
    EXPECT_TRUE(text == want) << name << " differs from its golden file at byte " << at
                              << ":\n  golden:   " << want.substr(at, 160)
                              << "\n  compiled: " << text.substr(at, 160)
                              << "\nif the change is meant, run with GPUA_UPDATE_GOLDEN=1 and "
                                 "read the diff";
  }
}

}  // namespace
}  // namespace gpua::native

namespace gpua::native {
namespace {

TEST(CompileNative, StaticManifestsAreTheSameObjectsNamedForTheStaticDirectories) {
  std::string yaml = kPolicy;
  yaml.replace(yaml.find("    gpus: {maxPerPod: 8}"), 0, "    priorityClassName: gpu-training\n");
  const auto api = compileNative(load(yaml));
  const auto sta = compileNative(load(yaml), Form::Static);
  ASSERT_EQ(api.files.size(), sta.files.size());
  for (std::size_t i = 0; i < api.files.size(); ++i) {
    const auto& [name, text] = sta.files[i];
    // One directory per plugin: the apiserver's loaders each accept only their own kinds.
    const std::string dir =
        api.files[i].first.rfind("validating-", 0) == 0 ? "validating/" : "mutating/";
    EXPECT_EQ(name, dir + api.files[i].first);
    // KEP-5793: every name (and every binding's policyName) ends in .static.k8s.io.
    std::string expected = api.files[i].second;
    for (std::size_t at = 0; (at = expected.find("\"gpu-admission-", at)) != std::string::npos;) {
      const std::size_t end = expected.find('"', at + 1);
      expected.insert(end, ".static.k8s.io");
      at = end;
    }
    EXPECT_EQ(text, expected) << name;
    EXPECT_EQ(text.find("paramKind"), std::string::npos) << name;
  }
}

}  // namespace
}  // namespace gpua::native
