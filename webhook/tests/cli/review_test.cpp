// `gpu-admission review`: exit codes, text and JSON output, workloads, and the issue's done-when
// check (a Kubeflow training pod's patch applies and leaves valid extended resources).
#include <gtest/gtest.h>

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "cli_harness.hpp"
#include "json_patch_check.hpp"

namespace gpua::cli::test {
namespace {

class ReviewTest : public ::testing::Test {
 protected:
  void SetUp() override { dir_.write("policies/policy.yaml", kTestPolicy); }
  RunResult review(const std::string& file, std::vector<std::string> extra = {}) {
    std::vector<std::string> args{"review", "-f", file, "--policies", "policies"};
    args.insert(args.end(), extra.begin(), extra.end());
    return runCli(args, dir_.path());
  }
  ScratchDir dir_;
};

constexpr const char* kUnclassifiedGpuPod = R"(apiVersion: v1
kind: Pod
metadata:
  name: mystery
  namespace: team-a
spec:
  containers:
  - name: main
    image: cuda
    resources:
      limits:
        nvidia.com/gpu: 1
)";

TEST_F(ReviewTest, AdmittedPodExitsZeroAndPrintsPatchAndPatchedPodAsYaml) {
  dir_.write("pod.json", kKubeflowWorkerPod);
  const auto r = review("pod.json");
  ASSERT_EQ(r.exitCode, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("Pod team-a/mnist-worker-0: ADMITTED"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("class training"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\"op\": \"add\""), std::string::npos) << r.out;
  // The patched pod is YAML, with the class's priority class in it.
  EXPECT_NE(r.out.find("priorityClassName: gpu-training"), std::string::npos) << r.out;
}

constexpr const char* kDraPolicy = R"(apiVersion: gpu-admission.io/v1
kind: GpuPolicy
metadata: {name: dra}
spec:
  dra:
    unresolvedClaims: deny
    deviceClasses: [{name: gpu.nvidia.com, countsAs: nvidia.com/gpu}]
  pools: [{name: h100, gpu: H100-80GB, nodeSelector: {pool: h100}}]
  classes:
  - {name: training, match: {any: [{deviceClasses: [gpu.nvidia.com]}]}, pools: [h100]}
  rollout: []
)";

constexpr const char* kClaimingPod = R"(apiVersion: v1
kind: Pod
metadata: {name: claimer, namespace: ml}
spec:
  containers: [{name: c, image: cuda, resources: {claims: [{name: g}]}}]
  resourceClaims: [{name: g, resourceClaimTemplateName: single-gpu}]
)";

constexpr const char* kClaimTemplates = R"({"kind": "ResourceClaimTemplateList", "items": [
  {"metadata": {"name": "single-gpu", "namespace": "ml"},
   "spec": {"spec": {"devices": {"requests": [{"name": "gpu",
     "exactly": {"deviceClassName": "gpu.nvidia.com"}}]}}}}]})";

TEST_F(ReviewTest, ClaimsResolveAgainstTheDraObjectsOfDraFrom) {
  dir_.write("dra/policy.yaml", kDraPolicy);
  dir_.write("pod.yaml", kClaimingPod);
  dir_.write("templates.json", kClaimTemplates);
  auto withObjects =
      runCli({"review", "-f", "pod.yaml", "--policies", "dra", "--dra-from", "templates.json"},
             dir_.path());
  ASSERT_EQ(withObjects.exitCode, 0) << withObjects.out << withObjects.err;
  EXPECT_NE(withObjects.out.find("class training"), std::string::npos) << withObjects.out;
  auto without = runCli({"review", "-f", "pod.yaml", "--policies", "dra"}, dir_.path());
  EXPECT_EQ(without.exitCode, 1) << without.out << without.err;
  EXPECT_NE(without.out.find("dra-claim-unresolved"), std::string::npos) << without.out;
  // A file with no DRA objects in it is a usage error that names the file.
  auto wrong = runCli({"review", "-f", "pod.yaml", "--policies", "dra", "--dra-from", "pod.yaml"},
                      dir_.path());
  EXPECT_EQ(wrong.exitCode, 2);
  EXPECT_NE(wrong.err.find("pod.yaml: no DeviceClass, ResourceClaim"), std::string::npos)
      << wrong.err;
}

TEST_F(ReviewTest, ShowsThePriorityTierAndWhoMayPreemptIt) {
  dir_.write("policies/tiers.yaml", R"(apiVersion: gpu-admission.io/v1
kind: GpuPolicy
metadata: {name: tiers}
spec:
  priorityTiers:
  - {name: gpu-training, value: 10000}
  - {name: gpu-serving, value: 100000}
  classes:
  - name: serving
    match: {any: [{labels: {gpu-admission.io/class: serving}}]}
    pools: [train-h100]
    priorityClassName: gpu-serving
)");
  dir_.write("pod.json", kKubeflowWorkerPod);
  const auto text = review("pod.json");
  ASSERT_EQ(text.exitCode, 0) << text.out << text.err;
  EXPECT_NE(text.out.find("priority: gpu-training (value 10000, preemptionPolicy "
                          "PreemptLowerPriority; preemptible by class serving (gpu-serving) on "
                          "pool train-h100)"),
            std::string::npos)
      << text.out;
  const auto json = review("pod.json", {"-o", "json"});
  ASSERT_EQ(json.exitCode, 0) << json.err;
  const auto doc = parseJson(json.out);
  ASSERT_TRUE(doc.HasMember("priority")) << json.out;
  EXPECT_EQ(std::string(doc["priority"].GetString()).rfind("gpu-training (value 10000", 0), 0u);
}

TEST_F(ReviewTest, DeniedPodExitsOneWithTheMessage) {
  dir_.write("pod.yaml", kUnclassifiedGpuPod);
  const auto r = review("pod.yaml");
  EXPECT_EQ(r.exitCode, 1) << r.out << r.err;
  EXPECT_NE(r.out.find("DENIED (403 Forbidden)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("message: "), std::string::npos) << r.out;
}

TEST_F(ReviewTest, WarnModeNamespaceLabelsAdmitWithAWarning) {
  dir_.write("pod.yaml", kUnclassifiedGpuPod);
  const auto r = review("pod.yaml", {"--namespace-labels", "env=dev"});
  EXPECT_EQ(r.exitCode, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("mode warn"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("warnings:"), std::string::npos) << r.out;
}

TEST_F(ReviewTest, MissingFileExitsTwoNamingTheFile) {
  const auto r = review("nope.yaml");
  EXPECT_EQ(r.exitCode, 2);
  EXPECT_NE(r.err.find("nope.yaml: cannot open file"), std::string::npos) << r.err;
}

TEST_F(ReviewTest, InvalidYamlExitsTwoNamingTheLine) {
  dir_.write("bad.yaml", "apiVersion: v1\nkind: Pod\nmetadata:\n  name: x\n   bad: indent\n");
  const auto r = review("bad.yaml");
  EXPECT_EQ(r.exitCode, 2);
  EXPECT_NE(r.err.find("bad.yaml:5:7: invalid YAML: illegal map value"), std::string::npos)
      << r.err;
}

TEST_F(ReviewTest, DuplicateKeyExitsTwoNamingTheLine) {
  dir_.write("dup.yaml", "apiVersion: v1\nkind: Pod\nmetadata:\n  name: x\n  name: y\n");
  const auto r = review("dup.yaml");
  EXPECT_EQ(r.exitCode, 2);
  EXPECT_NE(r.err.find("dup.yaml:5:3: duplicate key \"name\""), std::string::npos) << r.err;
}

TEST_F(ReviewTest, InvalidJsonExitsTwoNamingLineAndColumn) {
  dir_.write("bad.json", "{\n  \"kind\": \"Pod\",\n  \"spec\": }\n");
  const auto r = review("bad.json");
  EXPECT_EQ(r.exitCode, 2);
  EXPECT_NE(r.err.find("bad.json:3:"), std::string::npos) << r.err;
}

TEST_F(ReviewTest, NotAPodExitsTwo) {
  dir_.write("cm.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\ndata: {a: b}\n");
  const auto r = review("cm.yaml");
  EXPECT_EQ(r.exitCode, 2);
  EXPECT_NE(r.err.find("cm.yaml: kind ConfigMap is not a Pod or a workload"), std::string::npos)
      << r.err;
}

TEST_F(ReviewTest, UnknownOptionIsAUsageError) {
  const auto r = runCli({"review", "--namspace", "x"}, dir_.path());
  EXPECT_EQ(r.exitCode, 2);
  EXPECT_NE(r.err.find("unknown option --namspace"), std::string::npos) << r.err;
}

TEST_F(ReviewTest, QuotedYamlNumbersStayStrings) {
  // "1" (a string quantity) and 1 (a number) are both valid Kubernetes quantities; the patched
  // pod must keep the user's unrelated string values as strings.
  dir_.write("pod.yaml", R"(apiVersion: v1
kind: Pod
metadata:
  name: strs
  namespace: team-a
  labels: {training.kubeflow.org/job-name: "007", version: "1.10"}
spec:
  containers:
  - name: main
    image: cuda
    resources: {limits: {nvidia.com/gpu: "1"}}
)");
  const auto r = review("pod.yaml", {"-o", "json"});
  ASSERT_EQ(r.exitCode, 0) << r.out << r.err;
  auto d = parseJson(r.out);
  const auto& labels = d["patchedObject"]["metadata"]["labels"];
  EXPECT_STREQ(labels["training.kubeflow.org/job-name"].GetString(), "007");
  EXPECT_STREQ(labels["version"].GetString(), "1.10");
}

TEST_F(ReviewTest, JsonOutputIsParseableAndItsPatchAppliesToTheInput) {
  dir_.write("pod.json", kKubeflowWorkerPod);
  const auto r = review("pod.json", {"--output", "json"});
  ASSERT_EQ(r.exitCode, 0) << r.err;
  auto out = parseJson(r.out);
  ASSERT_TRUE(out["allowed"].GetBool());
  ASSERT_TRUE(out["patch"].IsArray());
  ASSERT_GT(out["patch"].Size(), 0u);
  auto pod = parseJson(kKubeflowWorkerPod);
  ASSERT_EQ(applyJsonPatch(pod, out["patch"]), "");
  EXPECT_TRUE(pod == out["patchedObject"]);
}

// The issue's done-when: the Kubeflow training pod's patch applies with a strict JSON Patch
// applier, and the result follows the Kubernetes rules for extended resources.
TEST_F(ReviewTest, KubeflowTrainingPodPatchAppliesAndKeepsExtendedResourcesValid) {
  dir_.write("pod.json", kKubeflowWorkerPod);
  const auto r = review("pod.json", {"-o", "json"});
  ASSERT_EQ(r.exitCode, 0) << r.err;
  auto out = parseJson(r.out);
  auto pod = parseJson(kKubeflowWorkerPod);
  ASSERT_EQ(applyJsonPatch(pod, out["patch"]), "");
  EXPECT_EQ(extendedResourceProblems(pod), "");
  EXPECT_STREQ(pod["spec"]["priorityClassName"].GetString(), "gpu-training");
  // Re-reviewing the patched pod must change nothing (the apiserver's reinvocation).
  rapidjson::StringBuffer b;
  rapidjson::Writer<rapidjson::StringBuffer> w(b);
  pod.Accept(w);
  dir_.write("patched.json", b.GetString());
  const auto again = review("patched.json", {"-o", "json"});
  ASSERT_EQ(again.exitCode, 0) << again.err;
  EXPECT_EQ(parseJson(again.out)["patch"].Size(), 0u) << again.out;
}

TEST_F(ReviewTest, CorpusKubeflowMasterPodWithOperatorLabels) {
  const std::string corpus = GPUA_CORPUS_DIR "/pods/13-kf-pytorchjob-nccl-master.json";
  if (!std::filesystem::exists(corpus)) GTEST_SKIP() << "corpus not present: " << corpus;
  auto pod = parseJson([&] {
    std::ifstream in(corpus);
    std::ostringstream ss;
    ss << in.rdbuf();
    return ss.str();
  }());
  // The training operator labels the pods it creates; the corpus keeps the bare template.
  auto& a = pod.GetAllocator();
  rapidjson::Value labels(rapidjson::kObjectType);
  labels.AddMember("training.kubeflow.org/job-name", "pytorch-dist-mnist-nccl", a);
  labels.AddMember("training.kubeflow.org/replica-type", "master", a);
  pod["metadata"].AddMember("labels", labels, a);
  rapidjson::StringBuffer b;
  rapidjson::Writer<rapidjson::StringBuffer> w(b);
  pod.Accept(w);
  dir_.write("master.json", b.GetString());
  const auto r = review("master.json", {"-o", "json", "-n", "team-a"});
  ASSERT_EQ(r.exitCode, 0) << r.out << r.err;
  auto out = parseJson(r.out);
  pod["metadata"].AddMember("namespace", "team-a", a);
  ASSERT_EQ(applyJsonPatch(pod, out["patch"]), "");
  EXPECT_EQ(extendedResourceProblems(pod), "");
  EXPECT_TRUE(pod == out["patchedObject"]);
}

TEST_F(ReviewTest, DeploymentIsReviewedAsAWorkloadWithoutAPatch) {
  dir_.write("deploy.yaml", R"(apiVersion: apps/v1
kind: Deployment
metadata: {name: trainer, namespace: team-a}
spec:
  replicas: 1
  selector: {matchLabels: {app: trainer}}
  template:
    metadata:
      labels: {app: trainer, gpu-admission.io/class: training}
    spec:
      containers:
      - name: main
        image: cuda
        resources: {limits: {nvidia.com/gpu: 2}}
)");
  const auto r = review("deploy.yaml", {"-o", "json"});
  ASSERT_EQ(r.exitCode, 0) << r.out << r.err;
  auto out = parseJson(r.out);
  EXPECT_STREQ(out["object"]["kind"].GetString(), "Deployment");
  EXPECT_EQ(out["patch"].Size(), 0u);
}

TEST_F(ReviewTest, DeploymentWithTooManyGpusPerPodIsDenied) {
  dir_.write("deploy.yaml", R"(apiVersion: apps/v1
kind: Deployment
metadata: {name: trainer, namespace: team-a}
spec:
  selector: {matchLabels: {app: trainer}}
  template:
    metadata:
      labels: {app: trainer, gpu-admission.io/class: training}
    spec:
      containers:
      - name: main
        image: cuda
        resources: {limits: {nvidia.com/gpu: 16}}
)");
  const auto r = review("deploy.yaml");
  EXPECT_EQ(r.exitCode, 1) << r.out << r.err;
  EXPECT_NE(r.out.find("Deployment team-a/trainer: DENIED"), std::string::npos) << r.out;
}

// The CLI accepts the core group's controllers, and the engine judges their templates: an
// accepted kind is never waved through unjudged.
TEST_F(ReviewTest, ReplicationControllerAndPodTemplateAreJudged) {
  const std::string tmpl = R"(
    metadata:
      labels: {app: trainer, gpu-admission.io/class: training}
    spec:
      containers:
      - name: main
        image: cuda
        resources: {limits: {nvidia.com/gpu: 16}}
)";
  dir_.write("rc.yaml", "apiVersion: v1\nkind: ReplicationController\n"
                        "metadata: {name: trainer, namespace: team-a}\nspec:\n  template:" +
                            tmpl);
  dir_.write("pt.yaml", "apiVersion: v1\nkind: PodTemplate\n"
                        "metadata: {name: trainer, namespace: team-a}\ntemplate:" +
                            tmpl);
  const auto rc = review("rc.yaml");
  EXPECT_EQ(rc.exitCode, 1) << rc.out << rc.err;
  EXPECT_NE(rc.out.find("ReplicationController team-a/trainer: DENIED"), std::string::npos)
      << rc.out;
  const auto pt = review("pt.yaml");
  EXPECT_EQ(pt.exitCode, 1) << pt.out << pt.err;
  EXPECT_NE(pt.out.find("PodTemplate team-a/trainer: DENIED"), std::string::npos) << pt.out;
}

}  // namespace
}  // namespace gpua::cli::test
