// Validation rules: rule ids and the one-line messages developers read.
#include <gtest/gtest.h>

#include "test_support.hpp"

namespace gpua::engine {
namespace {

using namespace testing;

void expectDenied(const Decision& d, const std::string& rule, const std::string& message) {
  ASSERT_FALSE(d.allowed());
  ASSERT_FALSE(d.violations.empty());
  EXPECT_EQ(d.violations[0].rule, rule);
  EXPECT_EQ(d.denial->message, message);
  EXPECT_TRUE(d.patch.empty());
  EXPECT_TRUE(d.warnings.empty());
}

TEST(Validate, MaxPerPod) {
  expectDenied(decidePod(gpuPod(kTraining, R"({"limits":{"nvidia.com/gpu":16}})")), "max-per-pod",
               "pod \"trainer-0\" container \"pytorch\" asks for 16 nvidia.com/gpu but class "
               "training allows at most 8 per pod: split the job across more pods or ask the "
               "platform team for a larger limit");
  EXPECT_TRUE(decidePod(gpuPod(kTraining, R"({"limits":{"nvidia.com/gpu":8}})")).allowed());
}

TEST(Validate, MaxPerPodSumsContainersAndNamesThem) {
  const std::string pod =
      R"({"metadata":{"name":"p","labels":{"gpu-admission.io/class":"training"}},"spec":{"containers":[)"
      R"({"name":"a","resources":{"limits":{"nvidia.com/gpu":5}}},{"name":"b","resources":{"limits":{"nvidia.com/gpu":4}}}]}})";
  expectDenied(decidePod(pod), "max-per-pod",
               "pod \"p\" asks for 9 nvidia.com/gpu but class training allows at most 8 per pod: "
               "split the job across more pods or ask the platform team for a larger limit "
               "(containers \"a\", \"b\")");
}

TEST(Validate, ManyContainersKeepTheNumbersAndTheFixFirstAndTheListBounded) {
  std::string containers;
  for (int i = 0; i < 100; ++i)
    containers += std::string(i ? "," : "") + R"({"name":"worker-with-a-long-name-)" +
                  std::to_string(i) + R"(","resources":{"limits":{"nvidia.com/gpu":1}}})";
  const std::string pod =
      R"({"metadata":{"name":"p","labels":{"gpu-admission.io/class":"training"}},"spec":{)"
      R"("containers":[)" +
      containers + "]}}";
  const Decision d = decidePod(pod);
  ASSERT_FALSE(d.allowed());
  const std::string& m = d.denial->message;
  EXPECT_EQ(m.rfind("pod \"p\" asks for 100 nvidia.com/gpu but class training allows at most 8 "
                    "per pod: split the job across more pods",
                    0),
            0u)
      << m;
  EXPECT_LE(m.size(), 400u) << m;
  EXPECT_NE(m.find("\"worker-with-a-long-name-0\""), std::string::npos) << m;
  EXPECT_NE(m.find(" and 95 more)"), std::string::npos) << m;
  // In warn mode the same message is a warning: the apiserver's budget holds, numbers first.
  auto p = makePolicy();
  p.rollout = {{std::nullopt, policy::Mode::Warn}};
  const Decision warned = decidePod(pod, p);
  ASSERT_TRUE(warned.allowed());
  std::size_t total = 0;
  bool sawNumbers = false;
  for (const auto& w : warned.warnings) {
    total += w.size();
    sawNumbers = sawNumbers || w.find(
                                   "asks for 100 nvidia.com/gpu but class training allows at "
                                   "most 8 per pod") != std::string::npos;
  }
  EXPECT_TRUE(sawNumbers);
  EXPECT_LE(total, 4096u);
}

TEST(Validate, InitContainersCountAsMaxNotSum) {
  const std::string pod =
      R"({"metadata":{"name":"p","labels":{"gpu-admission.io/class":"training"}},"spec":{)"
      R"("initContainers":[{"name":"i","resources":{"limits":{"nvidia.com/gpu":8}}}],)"
      R"("containers":[{"name":"a","resources":{"limits":{"nvidia.com/gpu":8}}}]}})";
  EXPECT_TRUE(decidePod(pod).allowed());
}

TEST(Validate, MaxPerContainer) {
  auto p = makePolicy();
  p.classes[0].gpus.maxPerContainer = 2;
  expectDenied(decidePod(gpuPod(kTraining, R"({"limits":{"nvidia.com/gpu":4}})"), p),
               "max-per-container",
               "pod \"trainer-0\" container \"pytorch\" asks for 4 nvidia.com/gpu but class "
               "training allows at most 2 per container: spread the work over more containers or "
               "pods, or ask the platform team for a larger limit");
}

TEST(Validate, MaxPerPodOffersAnEarlierClassThatAllowsMore) {
  auto p = makePolicy();
  policy::WorkloadClass large = p.classes[0];
  large.name = "training-large";
  large.match.any = {labelRule("gpu-admission.io/class", "training-large")};
  large.gpus.maxPerPod = 16;
  large.allowedNamespaces = policy::NamespaceSelector{};
  large.allowedNamespaces->names = {"ml-research"};
  p.classes.insert(p.classes.begin(), large);
  const std::string pod = gpuPod(kTraining, R"({"limits":{"nvidia.com/gpu":12}})");
  expectDenied(decidePod(pod, p), "max-per-pod",
               "pod \"trainer-0\" container \"pytorch\" asks for 12 nvidia.com/gpu but class "
               "training allows at most 8 per pod: split the job across more pods, label the pod "
               "gpu-admission.io/class=training-large for a class that allows 12, or ask the "
               "platform team for a larger limit");
  // Not offered where the namespace may not use it, nor when it is too small too.
  EXPECT_EQ(decidePod(pod, p, podContext("elsewhere", {})).denial->message.find("training-large"),
            std::string::npos);
  p.classes[0].gpus.maxPerPod = 10;
  EXPECT_EQ(decidePod(pod, p).denial->message.find("training-large"), std::string::npos);
}

TEST(Validate, MissingGpuRequest) {
  expectDenied(decidePod(gpuPod(kTraining, R"({"limits":{"cpu":"2"}})")), "missing-gpu-request",
               "pod \"trainer-0\" is in GPU class training (label gpu-admission.io/class=training) "
               "but no container asks for a GPU: add resources.limits nvidia.com/gpu: 1 to the "
               "container that needs it, or remove the label gpu-admission.io/class=training if "
               "the pod needs no GPU");
}

// A container whose GPUs come only from a DRA claim asks for no extended resource: the denial
// names the claim, never "asks for 0 GPUs".
TEST(Validate, GpuForbiddenForAClaimOnlyContainerNamesTheClaim) {
  expectDenied(decidePod(gpuPod(R"({"gpu-admission.io/class":"batch"})",
                                R"({"claims":[{"name":"gpu"}]})",
                                R"("resourceClaims":[{"name":"gpu","resourceClaimName":"c"}])")),
               "gpu-forbidden",
               "pod \"trainer-0\" claims devices (resourceClaims) but class batch (label "
               "gpu-admission.io/class=batch) does not allow GPUs: remove the claim, or label the "
               "pod gpu-admission.io/class=<training|inference|interactive> to use a GPU class");
}

TEST(Validate, GpuForbidden) {
  expectDenied(
      decidePod(
          gpuPod(R"({"gpu-admission.io/class":"batch"})", R"({"limits":{"nvidia.com/gpu":1}})")),
      "gpu-forbidden",
      "pod \"trainer-0\" container \"pytorch\" asks for 1 nvidia.com/gpu but class batch "
      "(label gpu-admission.io/class=batch) does not allow GPUs: remove the GPU request, or "
      "label the pod gpu-admission.io/class=<training|inference|interactive> to use a GPU class");
  EXPECT_TRUE(decidePod(gpuPod(R"({"gpu-admission.io/class":"batch"})", R"({"limits":{"cpu":1}})"))
                  .allowed());
  // Only GPU classes listed before batch can take the pod away from it (first match wins).
  auto p = makePolicy();
  std::swap(p.classes[1], p.classes[3]);  // training, batch, interactive, inference
  const Decision d =
      decidePod(gpuPod(R"({"spark-role":"executor","gpu-admission.io/class":"batch"})",
                       R"({"limits":{"nvidia.com/gpu":1}})"),
                p);
  ASSERT_FALSE(d.allowed());
  EXPECT_NE(d.denial->message.find("or label the pod gpu-admission.io/class=training to use a GPU "
                                   "class"),
            std::string::npos)
      << d.denial->message;
}

TEST(Validate, GpuPoolWithoutRequestByNodeSelectorAffinityAndToleration) {
  const std::string cpu = R"({"limits":{"cpu":"1"}})";
  expectDenied(decidePod(gpuPod(R"({"app":"x"})", cpu,
                                R"("nodeSelector":{"gpu-admission.io/pool":"train"})")),
               "gpu-pool-without-request",
               "pod \"trainer-0\" targets GPU pool train-h100 (nodeSelector "
               "gpu-admission.io/pool=train) but asks for no GPU: add a GPU to resources.limits of "
               "the container that needs one, or remove the nodeSelector entry so the pod runs on "
               "CPU nodes");
  const Decision aff = decidePod(gpuPod(
      R"({"app":"x"})", cpu,
      R"("affinity":{"nodeAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":{"nodeSelectorTerms":[{"matchExpressions":[{"key":"nvidia.com/mig.strategy","operator":"In","values":["mixed"]}]}]}}})"));
  ASSERT_FALSE(aff.allowed());
  EXPECT_NE(aff.denial->message.find(
                "targets GPU pool infer-a100 (node affinity nvidia.com/mig.strategy=mixed)"),
            std::string::npos);
  const Decision tol = decidePod(gpuPod(
      R"({"app":"x"})", cpu, R"("tolerations":[{"key":"nvidia.com/gpu","operator":"Exists"}])"));
  ASSERT_FALSE(tol.allowed());
  EXPECT_NE(tol.denial->message.find("(toleration nvidia.com/gpu)"), std::string::npos);
  EXPECT_NE(tol.denial->message.find("remove the toleration"), std::string::npos);
  // A blanket toleration (node agents) and unrelated selectors are fine.
  EXPECT_TRUE(decidePod(gpuPod(R"({"app":"x"})", cpu, R"("tolerations":[{"operator":"Exists"}])"))
                  .allowed());
  EXPECT_TRUE(
      decidePod(gpuPod(R"({"app":"x"})", cpu, R"("nodeSelector":{"disktype":"ssd"})")).allowed());
}

TEST(Validate, MigProfileUnavailable) {
  expectDenied(
      decidePod(gpuPod(R"({"gpu-admission.io/class":"inference"})",
                       R"({"limits":{"nvidia.com/mig-7g.80gb":1}})")),
      "mig-profile-unavailable",
      "pod \"trainer-0\" container \"pytorch\" asks for nvidia.com/mig-7g.80gb but no pool "
      "of class inference offers MIG profile 7g.80gb (offered: 1g.10gb, 2g.20gb, 3g.40gb): "
      "request one of the offered profiles, or nvidia.com/gpu to get the class's default");
  const Decision noMig = decidePod(gpuPod(kTraining, R"({"limits":{"nvidia.com/mig-1g.10gb":1}})"));
  ASSERT_FALSE(noMig.allowed());
  EXPECT_NE(noMig.denial->message.find("(no pool of class training has MIG)"), std::string::npos);
}

TEST(Validate, SharedGpuOverOne) {
  expectDenied(decidePod(gpuPod(R"({"gpu-admission.io/class":"interactive"})",
                                R"({"limits":{"nvidia.com/gpu":2}})")),
               "shared-gpu-over-one",
               "pod \"trainer-0\" container \"pytorch\" asks for 2 nvidia.com/gpu but class "
               "interactive shares GPUs by time-slicing, where more than 1 unit adds no compute or "
               "memory: request 1, or use a class with whole GPUs");
  EXPECT_FALSE(decidePod(gpuPod(R"({"gpu-admission.io/class":"interactive"})",
                                R"({"limits":{"nvidia.com/gpu.shared":3}})"))
                   .allowed());
}

TEST(Validate, InvalidQuantities) {
  for (const std::string q : {R"("0.5")", R"("500m")", "0.5", "-1", R"("abc")", "true"}) {
    SCOPED_TRACE(q);
    const Decision d = decidePod(gpuPod(kTraining, R"({"limits":{"nvidia.com/gpu":)" + q + "}}"));
    ASSERT_FALSE(d.allowed());
    EXPECT_EQ(d.violations[0].rule, "invalid-gpu-quantity");
    EXPECT_EQ(d.denial->message.rfind("pod \"trainer-0\" container \"pytorch\" asks for ", 0), 0u);
    EXPECT_NE(d.denial->message.find("nvidia.com/gpu but GPU resources must be whole numbers"),
              std::string::npos);
  }
  const Decision half = decidePod(gpuPod(kTraining, R"({"limits":{"nvidia.com/gpu":"500m"}})"));
  EXPECT_NE(half.denial->message.find("asks for \"500m\" nvidia.com/gpu"), std::string::npos);
  for (const std::string q : {R"("2")", R"("2000m")", "2.0", R"("+2")"})
    EXPECT_TRUE(
        decidePod(gpuPod(kTraining, R"({"limits":{"nvidia.com/gpu":)" + q + "}}")).allowed())
        << q;
}

TEST(Validate, WholeQuantitiesInEveryKubernetesForm) {
  // Exponents and every SI suffix are whole numbers: the class's limit judges them.
  for (const std::string q : {R"("1e3")", R"("2T")", R"("1Ti")", R"("8e0")", R"("0.008k")"}) {
    SCOPED_TRACE(q);
    const Decision d = decidePod(gpuPod(kTraining, R"({"limits":{"nvidia.com/gpu":)" + q + "}}"));
    for (const auto& v : d.violations) EXPECT_NE(v.rule, "invalid-gpu-quantity");
  }
  const Decision thousand = decidePod(gpuPod(kTraining, R"({"limits":{"nvidia.com/gpu":"1e3"}})"));
  ASSERT_FALSE(thousand.allowed());
  EXPECT_EQ(thousand.violations[0].rule, "max-per-pod");
  EXPECT_NE(thousand.denial->message.find("asks for 1000 nvidia.com/gpu"), std::string::npos);
  EXPECT_TRUE(decidePod(gpuPod(kTraining, R"({"limits":{"nvidia.com/gpu":"8e0"}})")).allowed());
  // Too large to be a count: reported, never wrapped.
  const Decision huge = decidePod(gpuPod(kTraining, R"({"limits":{"nvidia.com/gpu":"8Ei"}})"));
  ASSERT_FALSE(huge.allowed());
  EXPECT_EQ(huge.violations[0].rule, "invalid-gpu-quantity");
}

TEST(Validate, RequestsLimitsMismatch) {
  expectDenied(
      decidePod(
          gpuPod(kTraining, R"({"requests":{"nvidia.com/gpu":1},"limits":{"nvidia.com/gpu":2}})")),
      "requests-limits-mismatch",
      "pod \"trainer-0\" container \"pytorch\" requests 1 nvidia.com/gpu but limits it to "
      "2: GPU requests must equal limits, set both to the same number");
}

TEST(Validate, ClassNotAllowedInNamespace) {
  auto p = makePolicy();
  p.classes[1].allowedNamespaces = policy::NamespaceSelector{};
  p.classes[1].allowedNamespaces->labels.matchLabels = {{"serving", "true"}};
  const std::string pod =
      gpuPod(R"({"gpu-admission.io/class":"inference"})", R"({"limits":{"nvidia.com/gpu":1}})");
  expectDenied(decidePod(pod, p, podContext("team-a", {})), "class-not-allowed",
               "pod \"trainer-0\" matches GPU class inference (label "
               "gpu-admission.io/class=inference), which namespace \"team-a\" may not use (class "
               "inference is for namespaces with serving=true): run it there, remove the label "
               "gpu-admission.io/class=inference, or ask the platform team to allow this "
               "namespace");
  EXPECT_TRUE(decidePod(pod, p, podContext("serving", {{"serving", "true"}})).allowed());
}

TEST(Validate, GenerateNameInMessages) {
  const std::string pod =
      R"({"metadata":{"generateName":"job-","labels":{"gpu-admission.io/class":"training"}},)"
      R"("spec":{"containers":[{"name":"c","resources":{"limits":{"nvidia.com/gpu":9}}}]}})";
  const Decision d = decidePod(pod);
  ASSERT_FALSE(d.allowed());
  EXPECT_EQ(d.denial->message.rfind("pod \"job-\" (generateName) container \"c\" asks for 9", 0),
            0u);
}

TEST(Validate, SeveralViolationsAreCounted) {
  const std::string pod =
      R"({"metadata":{"name":"p","labels":{"gpu-admission.io/class":"training"}},"spec":{"containers":[)"
      R"({"name":"a","resources":{"limits":{"nvidia.com/gpu":"0.5"}}},)"
      R"({"name":"b","resources":{"requests":{"nvidia.com/gpu":1},"limits":{"nvidia.com/gpu":3}}}]}})";
  const Decision d = decidePod(pod);
  ASSERT_FALSE(d.allowed());
  EXPECT_EQ(d.violations.size(), 2u);
  EXPECT_NE(d.denial->message.find("(and 1 more)"), std::string::npos);
}

TEST(Validate, InvalidPodFieldsAreNamed) {
  const Decision d = decidePod(gpuPod(kTraining, R"("lots")"));
  ASSERT_FALSE(d.allowed());
  EXPECT_EQ(d.violations[0].rule, "invalid-pod");
  EXPECT_EQ(d.denial->message,
            "pod \"trainer-0\": field spec.containers[0].resources must be an object: fix the "
            "manifest (Kubernetes would reject it) (and 1 more)");
  EXPECT_EQ(d.violations[1].rule, "missing-gpu-request");
  const Decision tol =
      decidePod(gpuPod(kTraining, R"({"limits":{"nvidia.com/gpu":1}})", R"("tolerations":{})"));
  ASSERT_FALSE(tol.allowed());
  EXPECT_NE(tol.denial->message.find("field spec.tolerations must be a list"), std::string::npos);
}

}  // namespace
}  // namespace gpua::engine
