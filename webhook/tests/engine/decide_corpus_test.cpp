// Real-world pods (GPUA_CORPUS/pods): every one is decided without crashing, its patch applies
// with the apiserver's strictness, and a second pass emits nothing. Skipped on a plain clone.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "engine/core/json_util.hpp"
#include "policy/loader.hpp"
#include "test_support.hpp"

namespace gpua::engine {
namespace {

using namespace testing;
namespace fs = std::filesystem;

fs::path corpusDir() {
  return fs::path(GPUA_CORPUS_DIR) / "pods";
}

std::string readFile(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string corpusPod(const std::string& name) {
  return readFile(corpusDir() / name);
}

class Corpus : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!fs::is_directory(corpusDir())) GTEST_SKIP() << "no corpus at " << corpusDir();
  }
};

// The test policy, but unclassified GPU pods go to training so that most pods get mutated.
policy::PolicySet assigningPolicy() {
  auto p = makePolicy();
  p.unclassifiedGpuPods.action = policy::UnclassifiedGpuPods::Action::AssignClass;
  p.unclassifiedGpuPods.className = "training";
  p.pools[0].runtimeClassName = "nvidia";
  return p;
}

TEST_F(Corpus, EveryPodDecidesAppliesAndIsIdempotent) {
  int count = 0;
  for (const auto& entry : fs::directory_iterator(corpusDir())) {
    if (entry.path().extension() != ".json") continue;
    SCOPED_TRACE(entry.path().filename().string());
    const std::string text = readFile(entry.path());
    for (const auto& policy : {makePolicy(), assigningPolicy()}) {
      const Applied run = decideAndApply(text, policy);
      EXPECT_EQ(run.decision.denial.has_value(), !run.decision.allowed());
      if (!run.decision.allowed()) {
        EXPECT_TRUE(run.decision.patch.empty());
      }
      for (const auto& w : run.decision.warnings) EXPECT_EQ(w.find('\n'), std::string::npos);
    }
    ++count;
  }
  EXPECT_GE(count, 20);
}

// Require instead of fix: on every real pod, what mutate mode writes is exactly what
// require mode demands, so the mutated pod passes require mode with no patch and no *-required
// violation, and require mode never writes an effect into the original pod.
TEST_F(Corpus, MutateModeOutputPassesRequireModeOnEveryPod) {
  auto require = assigningPolicy();
  for (auto& c : require.classes)
    c.effects = {policy::EffectMode::Require, policy::EffectMode::Require,
                 policy::EffectMode::Require, policy::EffectMode::Require,
                 policy::EffectMode::Require, policy::EffectMode::Require};
  int mutated = 0;
  for (const auto& entry : fs::directory_iterator(corpusDir())) {
    if (entry.path().extension() != ".json") continue;
    SCOPED_TRACE(entry.path().filename().string());
    const Applied run = decideAndApply(readFile(entry.path()), assigningPolicy());
    if (!run.decision.allowed() || run.decision.patch.empty()) continue;
    ++mutated;
    rapidjson::Document pod = parse(run.patched);
    const Decision again = decide(pod, podContext(), require, emptyUsage());
    for (const auto& v : again.violations)
      EXPECT_EQ(v.rule.find("-required"), std::string::npos) << v.message;
    EXPECT_TRUE(again.patch.empty()) << serializePatch(again.patch);
    rapidjson::Document original = parse(readFile(entry.path()));
    const Decision strict = decide(original, podContext(), require, emptyUsage());
    for (const auto& op : strict.patch)
      EXPECT_TRUE(op.path.starts_with("/metadata/annotations")) << op.path;
  }
  EXPECT_GE(mutated, 5);
}

TEST_F(Corpus, ZeroQuantityPodIsNoGpu) {
  const Applied run =
      decideAndApply(corpusPod("59-kyverno-gpu-zero-quantity.json"), assigningPolicy());
  EXPECT_EQ(run.decision.outcome, Decision::Outcome::NoGpu);
  EXPECT_TRUE(run.decision.patch.empty());
}

TEST_F(Corpus, ExplicitMigSliceIsKept) {
  auto p = assigningPolicy();
  p.unclassifiedGpuPods.className = "inference";
  const Applied run = decideAndApply(corpusPod("07-nv-docs-ocp-mig-mixed-2g10gb.json"), p);
  EXPECT_EQ(run.decision.className, "inference");
  // 2g.10gb is an A100-40GB profile: the A100-80GB pool cannot serve it.
  ASSERT_FALSE(run.decision.allowed());
  EXPECT_EQ(run.decision.violations[0].rule, "mig-profile-unavailable");
  p.pools[1].migProfiles.push_back("2g.10gb");
  const Applied ok = decideAndApply(corpusPod("07-nv-docs-ocp-mig-mixed-2g10gb.json"), p);
  ASSERT_TRUE(ok.decision.allowed());
  for (const auto& op : ok.decision.patch) EXPECT_EQ(op.path.find("/resources"), std::string::npos);
}

TEST_F(Corpus, RequestsOnlyPodGetsLimits) {
  const Applied run =
      decideAndApply(corpusPod("29-kueue-lws-worker-requests-only.json"), assigningPolicy());
  ASSERT_TRUE(run.decision.allowed());
  EXPECT_EQ(at(run.patched, "/spec/containers/0/resources/limits"), R"({"nvidia.com/gpu":"1"})");
}

TEST_F(Corpus, InitContainerGpuStaysThereAndMainGetsVoid) {
  const Applied run = decideAndApply(corpusPod("45-gpuop-plugin-validator-gpu-initcontainer.json"),
                                     assigningPolicy());
  ASSERT_TRUE(run.decision.allowed());
  EXPECT_DOUBLE_EQ(run.decision.gpuEquivalents, 1);
  EXPECT_NE(at(run.patched, "/spec/initContainers/0/resources/limits").find("nvidia.com/gpu"),
            std::string::npos);
  EXPECT_EQ(at(run.patched, "/spec/containers/0/resources/limits"), "");
  EXPECT_NE(at(run.patched, "/spec/containers/0/env").find("\"void\""), std::string::npos);
}

TEST_F(Corpus, CpuPodsAreLeftAlone) {
  for (const char* name : {"47-k8s-docs-nginx-nodeselector.json", "31-kueue-plain-pod-busybox.json",
                           "49-gke-cpu-model-download-nodeaffinity.json"}) {
    SCOPED_TRACE(name);
    const Applied run = decideAndApply(corpusPod(name), assigningPolicy());
    EXPECT_EQ(run.decision.outcome, Decision::Outcome::NoGpu);
    EXPECT_TRUE(run.decision.allowed());
    EXPECT_TRUE(run.decision.patch.empty());
  }
}

TEST_F(Corpus, CpuNotebookInGpuRequiredClassIsDenied) {
  // The test policy's interactive class matches notebook-name and requires a GPU.
  const Applied run =
      decideAndApply(corpusPod("53-odh-kubeflow-notebook-real-pod-dump.json"), assigningPolicy());
  EXPECT_EQ(run.decision.className, "interactive");
  ASSERT_FALSE(run.decision.allowed());
  EXPECT_EQ(run.decision.violations[0].rule, "missing-gpu-request");
  EXPECT_EQ(run.decision.denial->message.rfind("pod \"wb1-0\" is in GPU class interactive", 0), 0u);
}

TEST_F(Corpus, OwnedBySchedulersAndHami) {
  const Applied volcano =
      decideAndApply(corpusPod("27-volcano-vgpu-hami-core.json"), assigningPolicy());
  EXPECT_EQ(volcano.decision.outcome, Decision::Outcome::Skipped);
  const Applied hami = decideAndApply(corpusPod("17-hami-gpumem-gpucores.json"), assigningPolicy());
  EXPECT_TRUE(hami.decision.patch.empty());
  EXPECT_NE(hami.decision.reason.find("skip rule hami"), std::string::npos);
}

TEST_F(Corpus, KubeflowPodIsTrainingAndKeepsItsTolerations) {
  const Applied run = decideAndApply(corpusPod("11-aks-tf-mnist-job.json"), assigningPolicy());
  ASSERT_TRUE(run.decision.allowed());
  const std::string tolerations = at(run.patched, "/spec/tolerations");
  EXPECT_NE(tolerations.find("\"sku\""), std::string::npos);
  EXPECT_NE(tolerations.find("nvidia.com/gpu"), std::string::npos);
  EXPECT_EQ(at(run.patched, "/spec/runtimeClassName"), R"("nvidia")");
}

// The shipped policies/, loaded by the real loader, over every corpus pod in every rollout mode
// the policy has (a dev namespace enforces, others warn): no crash, a patch that applies with
// the apiserver's strictness, nothing more to do on a second pass, one-line messages.
TEST_F(Corpus, ShippedPoliciesDecideEveryPodAndTheirPatchesApplyOnce) {
  const policy::LoadResult loaded = policy::loadPolicyPaths({GPUA_POLICIES_DIR});
  ASSERT_TRUE(loaded.ok()) << (loaded.errors.empty() ? "" : loaded.errors[0].format());
  const policy::PolicySet& shipped = *loaded.policy;
  const kube::Labels dev{{"env", "dev"}, {"team", "vision"}};
  const kube::Labels serving{{"gpu-admission.io/serving", "true"}};
  int count = 0;
  int mutated = 0;
  for (const auto& entry : fs::directory_iterator(corpusDir())) {
    if (entry.path().extension() != ".json") continue;
    SCOPED_TRACE(entry.path().filename().string());
    const std::string text = readFile(entry.path());
    for (const auto& ctx : {podContext("ml-dev", dev), podContext("serving", serving)}) {
      const Applied run = decideAndApply(text, shipped, ctx);
      EXPECT_NE(run.decision.outcome, Decision::Outcome::NotApplicable);
      if (!run.decision.allowed()) {
        EXPECT_TRUE(run.decision.patch.empty());
        EXPECT_EQ(run.decision.denial->message.find('\n'), std::string::npos);
      }
      if (!run.decision.patch.empty()) ++mutated;
    }
    ++count;
  }
  EXPECT_GE(count, 20);
  EXPECT_GT(mutated, 0);  // the run exercised the patch path, not only denials
}

TEST_F(Corpus, ShippedPoliciesPlaceLabelledCorpusPods) {
  const policy::LoadResult loaded = policy::loadPolicyPaths({GPUA_POLICIES_DIR});
  ASSERT_TRUE(loaded.ok());
  // The KServe predictor as KServe creates it: with its inferenceservice label.
  rapidjson::Document pod = parse(corpusPod("33-kserve-isvc-hf-llama-predictor.json"));
  rapidjson::Value& metadata = pod["metadata"];
  rapidjson::Value labels(rapidjson::kObjectType);
  labels.AddMember("serving.kserve.io/inferenceservice", "llama", pod.GetAllocator());
  metadata.AddMember("labels", labels, pod.GetAllocator());
  const Applied run = decideAndApply(toJson(pod), *loaded.policy,
                                     podContext("serving", {{"gpu-admission.io/serving", "true"}}));
  ASSERT_TRUE(run.decision.allowed()) << run.decision.denial->message;
  EXPECT_EQ(run.decision.className, "inference");
  EXPECT_EQ(at(run.patched, "/spec/containers/0/resources/limits/nvidia.com~1mig-2g.20gb"),
            R"("1")");
  EXPECT_EQ(at(run.patched, "/spec/nodeSelector/node.kubernetes.io~1instance-type"),
            R"("g5.8xlarge")");
}

}  // namespace
}  // namespace gpua::engine
