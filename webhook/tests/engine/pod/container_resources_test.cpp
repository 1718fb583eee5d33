// The class's `containers` rules (docs/policy-reference.md): required requests and limits, minimum
// QoS, maxima per GPU, limit/request ratios, required env, and the per-GPU default requests
// (idempotent mutation, or demanded in require mode), all with exact Kubernetes quantities.
#include <gtest/gtest.h>

#include "policy/loader.hpp"
#include "test_support.hpp"

namespace gpua::engine {
namespace {

using namespace testing;

policy::PolicyQuantity q(const std::string& text) {
  auto v = kube::parseQuantity(text);
  EXPECT_TRUE(v.has_value()) << text;
  return {v.value_or(kube::Quantity{}), text};
}

policy::PolicySet withRules(const policy::ContainerRules& rules) {
  auto p = makePolicy();
  p.classes[0].containers = rules;  // training
  return p;
}

std::vector<std::string> rules(const Decision& d) {
  std::vector<std::string> out;
  for (const auto& v : d.violations) out.push_back(v.rule);
  return out;
}

// A training pod whose containers are given as JSON (the array's contents).
std::string pod(const std::string& containers, const std::string& initContainers = "") {
  return R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"t","labels":)" + kTraining +
         R"(},"spec":{"containers":[)" + containers + "]" +
         (initContainers.empty() ? "" : R"(,"initContainers":[)" + initContainers + "]") + "}}";
}

std::string container(const std::string& name, const std::string& resources,
                      const std::string& extra = "") {
  return R"({"name":")" + name + R"(","image":"pytorch")" + extra + R"(,"resources":)" + resources +
         "}";
}

TEST(ContainerResources, RequiredRequestsAndLimitsNameTheContainerAndTheFields) {
  policy::ContainerRules r;
  r.requireRequests = {"cpu", "memory"};
  r.requireLimits = {"memory"};
  const auto p = withRules(r);
  const auto d =
      decidePod(pod(container("main", R"({"limits":{"nvidia.com/gpu":1,"cpu":"4"}})")), p);
  ASSERT_FALSE(d.allowed());
  EXPECT_EQ(rules(d), std::vector<std::string>{"container-resources-missing"});
  EXPECT_EQ(d.denial->message,
            "pod \"t\" container \"main\": no memory request, no memory limit; class training "
            "requires cpu and memory requests and memory limits on every container of its GPU "
            "pods: set spec.containers[0].resources.requests.memory, "
            "spec.containers[0].resources.limits.memory");
  // A limit stands for the request: the apiserver defaults the request to it.
  EXPECT_TRUE(
      decidePod(
          pod(container("main", R"({"limits":{"nvidia.com/gpu":1,"cpu":"4","memory":"32Gi"}})")), p)
          .allowed());
  // Init containers are containers of the pod too (Kyverno's require-requests-limits checks them).
  const auto init = decidePod(
      pod(container("main", R"({"limits":{"nvidia.com/gpu":1,"cpu":"4","memory":"1Gi"}})"),
          container("fetch", R"({"requests":{"cpu":"1"}})")),
      p);
  ASSERT_EQ(rules(init), std::vector<std::string>{"container-resources-missing"});
  EXPECT_NE(
      init.violations[0].message.find("init container \"fetch\": no memory request, no memory "
                                      "limit"),
      std::string::npos)
      << init.violations[0].message;
  // Pods without GPUs are not judged (batch forbids GPUs; these rules are about GPU pods).
  EXPECT_TRUE(
      decidePod(gpuPod(R"({"gpu-admission.io/class":"batch"})", "{}"), p).violations.empty());
}

TEST(ContainerResources, GuaranteedComparesQuantitiesExactly) {
  policy::ContainerRules r;
  r.qos = policy::QosClass::Guaranteed;
  const auto p = withRules(r);
  // 500m == 0.5, 1Gi == 1073741824, 1e3 == 1k: the same quantity written differently.
  EXPECT_TRUE(
      decidePod(pod(container("main",
                              R"({"requests":{"cpu":"500m","memory":"1Gi"},)"
                              R"("limits":{"nvidia.com/gpu":1,"cpu":0.5,"memory":"1073741824"}})")),
                p)
          .violations.empty());
  EXPECT_TRUE(decidePod(pod(container(
                            "main", R"({"requests":{"cpu":"1e3","memory":"1k"},)"
                                    R"("limits":{"nvidia.com/gpu":1,"cpu":"1k","memory":"1e3"}})")),
                        p)
                  .violations.empty());
  const auto burst = decidePod(
      pod(container("main", R"({"requests":{"cpu":"8","memory":"32Gi"},)"
                            R"("limits":{"nvidia.com/gpu":1,"cpu":"16","memory":"32Gi"}})")),
      p);
  ASSERT_FALSE(burst.allowed());
  EXPECT_EQ(burst.denial->message,
            "pod \"t\" container \"main\": cpu request 8 is not its limit 16; class training runs "
            "Guaranteed pods (cpu and memory limits on every container, requests equal to them): "
            "set spec.containers[0].resources.requests.cpu to 16");
  // Every container counts, init containers included (Kubernetes' QoS does).
  const auto init = decidePod(
      pod(container("main", R"({"limits":{"nvidia.com/gpu":1,"cpu":"2","memory":"2Gi"}})"),
          container("fetch", R"({"limits":{"cpu":"1"}})")),
      p);
  ASSERT_EQ(rules(init), std::vector<std::string>{"qos-not-guaranteed"});
  EXPECT_EQ(init.violations[0].message,
            "pod \"t\" init container \"fetch\": no memory limit; class training runs Guaranteed "
            "pods (cpu and memory limits on every container, requests equal to them): set "
            "spec.initContainers[0].resources.limits.memory (and the request equal to it)");
}

TEST(ContainerResources, BurstableRefusesABestEffortGpuPod) {
  policy::ContainerRules r;
  r.qos = policy::QosClass::Burstable;
  const auto p = withRules(r);
  // Only a GPU limit: GPUs do not count for QoS, so the pod is BestEffort.
  const auto d = decidePod(pod(container("main", R"({"limits":{"nvidia.com/gpu":1}})")), p);
  ASSERT_EQ(rules(d), std::vector<std::string>{"qos-best-effort"});
  EXPECT_EQ(d.violations[0].message,
            "pod \"t\" is BestEffort (no container sets a cpu or memory request or limit), the "
            "first pod evicted when its node runs short; class training needs at least Burstable: "
            "set spec.containers[0].resources.requests cpu and memory");
  // A zero request is no request (Kubernetes ignores it); any positive one makes it Burstable.
  EXPECT_FALSE(
      decidePod(pod(container("main", R"({"requests":{"cpu":"0"},"limits":{"nvidia.com/gpu":1}})")),
                p)
          .allowed());
  EXPECT_TRUE(decidePod(pod(container("main", R"({"limits":{"nvidia.com/gpu":1}})") + "," +
                            container("log", R"({"requests":{"memory":"64Mi"}})")),
                        p)
                  .violations.empty());
}

TEST(ContainerResources, MaximaPerGpuUseThePodsEffectiveRequest) {
  policy::ContainerRules r;
  r.maxPerGpu = {{"cpu", q("16")}, {"memory", q("240Gi")}};
  const auto p = withRules(r);
  const auto d = decidePod(
      pod(container("main", R"({"requests":{"cpu":"30"},"limits":{"nvidia.com/gpu":2}})") + "," +
          container("log", R"({"requests":{"cpu":"3000m"}})")),
      p);
  ASSERT_EQ(rules(d), std::vector<std::string>{"resources-per-gpu-exceeded"});
  EXPECT_EQ(d.violations[0].message,
            "pod \"t\" requests 33 cpu for 2 GPUs (16.5 per GPU), above the 16 per GPU of class "
            "training: request at most 32 cpu in all (the most in container \"main\": 30), or "
            "ask for more GPUs");
  // Exactly at the maximum passes: 32000m is 32.
  EXPECT_TRUE(decidePod(pod(container("main", R"({"requests":{"cpu":"32000m","memory":"480Gi"},)"
                                              R"("limits":{"nvidia.com/gpu":2}})")),
                        p)
                  .violations.empty());
  // An init container larger than the app containers is the pod's request; a native sidecar
  // (restartPolicy Always) adds to the app containers.
  const auto init = decidePod(
      pod(container("main", R"({"requests":{"memory":"100Gi"},"limits":{"nvidia.com/gpu":1}})"),
          container("unpack", R"({"requests":{"memory":"250Gi"}})")),
      p);
  ASSERT_EQ(rules(init), std::vector<std::string>{"resources-per-gpu-exceeded"});
  EXPECT_NE(init.violations[0].message.find("requests 250Gi memory for 1 GPU"), std::string::npos)
      << init.violations[0].message;
  const auto sidecar = decidePod(
      pod(container("main", R"({"requests":{"memory":"200Gi"},"limits":{"nvidia.com/gpu":1}})"),
          container("proxy", R"({"requests":{"memory":"41Gi"}})", R"(,"restartPolicy":"Always")")),
      p);
  ASSERT_EQ(rules(sidecar), std::vector<std::string>{"resources-per-gpu-exceeded"});
  EXPECT_NE(sidecar.violations[0].message.find("requests 241Gi memory"), std::string::npos)
      << sidecar.violations[0].message;
}

TEST(ContainerResources, LimitRequestRatioIsExact) {
  policy::ContainerRules r;
  r.maxLimitRequestRatio = {{"memory", q("1.5")}, {"cpu", q("2")}};
  const auto p = withRules(r);
  const auto d =
      decidePod(pod(container("main", R"({"requests":{"memory":"32Gi"},)"
                                      R"("limits":{"nvidia.com/gpu":1,"memory":"64Gi"}})")),
                p);
  ASSERT_EQ(rules(d), std::vector<std::string>{"limit-request-ratio-exceeded"});
  EXPECT_EQ(d.violations[0].message,
            "pod \"t\" container \"main\": memory limit 64Gi is 2x the request 32Gi, above the "
            "1.5x class training allows: lower spec.containers[0].resources.limits.memory to 48Gi "
            "or raise spec.containers[0].resources.requests.memory to 43691Mi");
  // 1.5 x 1 = 1500m exactly: allowed; one nano more is not.
  EXPECT_TRUE(
      decidePod(
          pod(container(
              "main",
              R"({"requests":{"memory":"1"},"limits":{"nvidia.com/gpu":1,"memory":"1500m"}})")),
          p)
          .violations.empty());
  EXPECT_FALSE(
      decidePod(
          pod(container(
              "main",
              R"({"requests":{"memory":"1"},"limits":{"nvidia.com/gpu":1,"memory":"1500000001n"}})")),
          p)
          .violations.empty());
  // A limit alone is its own request (ratio 1); a request without a limit is not judged here.
  EXPECT_TRUE(
      decidePod(
          pod(container(
              "main", R"({"requests":{"cpu":"64"},"limits":{"nvidia.com/gpu":1,"memory":"8Gi"}})")),
          p)
          .violations.empty());
}

TEST(ContainerResources, RequiredEnvOnGpuContainersOnly) {
  policy::ContainerRules r;
  r.requiredEnv = {{"NVIDIA_DRIVER_CAPABILITIES", std::nullopt}, {"NCCL_DEBUG", "WARN"}};
  const auto p = withRules(r);
  const std::string gpu = R"({"limits":{"nvidia.com/gpu":1}})";
  const auto d =
      decidePod(pod(container("main", gpu, R"(,"env":[{"name":"NCCL_DEBUG","value":"INFO"}])") +
                    "," + container("log", "{}")),
                p);
  ASSERT_EQ(rules(d), std::vector<std::string>{"required-env-missing"});  // not the sidecar
  EXPECT_EQ(d.violations[0].message,
            "pod \"t\" container \"main\" asks for a GPU but sets no NVIDIA_DRIVER_CAPABILITIES, "
            "NCCL_DEBUG=\"INFO\"; class training requires it on GPU containers: set in "
            "spec.containers[0].env: {\"name\":\"NVIDIA_DRIVER_CAPABILITIES\"}, "
            "{\"name\":\"NCCL_DEBUG\",\"value\":\"WARN\"} (envFrom is not visible at admission)");
  // Any value (even from valueFrom) satisfies a name-only requirement; the last entry wins.
  EXPECT_TRUE(
      decidePod(
          pod(container(
              "main", gpu,
              R"(,"env":[{"name":"NVIDIA_DRIVER_CAPABILITIES","valueFrom":{"configMapKeyRef":{"name":"c","key":"k"}}},)"
              R"({"name":"NCCL_DEBUG","value":"INFO"},{"name":"NCCL_DEBUG","value":"WARN"}])")),
          p)
          .violations.empty());
  // nvidia.com/gpu: 0 is no GPU: that container is not a GPU container.
  EXPECT_EQ(
      rules(decidePod(
          pod(container(
                  "main", gpu,
                  R"(,"env":[{"name":"NVIDIA_DRIVER_CAPABILITIES","value":"all"},{"name":"NCCL_DEBUG","value":"WARN"}])") +
              "," + container("zero", R"({"limits":{"nvidia.com/gpu":0}})")),
          p)),
      std::vector<std::string>{});
}

policy::ContainerRules defaults() {
  policy::ContainerRules r;
  r.defaultRequestsPerGpu = {{"cpu", q("8")}, {"memory", q("64Gi")}};
  r.requireRequests = {"cpu", "memory"};
  return r;
}

TEST(ContainerResources, DefaultsPerGpuAreWrittenInTheAuthorsUnitAndConverge) {
  const auto p = withRules(defaults());
  // No requests at all: the whole object is added (the parent must exist for the patch).
  const Applied a = decideAndApply(pod(container("main", R"({"limits":{"nvidia.com/gpu":2}})")), p);
  ASSERT_TRUE(a.decision.allowed()) << a.decision.denial->message;
  EXPECT_TRUE(a.decision.violations.empty());  // the defaults satisfy requireRequests
  EXPECT_EQ(at(a.patched, "/spec/containers/0/resources/requests"),
            R"({"cpu":"16","memory":"128Gi"})");
  EXPECT_NE(a.decision.warnings[0].find("container resource defaults (main)"), std::string::npos)
      << a.decision.warnings[0];
  // Requests without cpu: only cpu is added; a memory limit stands for the request.
  policy::ContainerRules onlyDefaults = defaults();
  onlyDefaults.requireRequests.clear();
  const Applied b = decideAndApply(
      pod(container(
              "main",
              R"({"requests":{"nvidia.com/gpu":1},"limits":{"nvidia.com/gpu":1,"memory":"10Gi"}})") +
          "," + container("log", "{}")),
      withRules(onlyDefaults));
  EXPECT_EQ(at(b.patched, "/spec/containers/0/resources/requests"),
            R"({"nvidia.com/gpu":1,"cpu":"8"})");
  EXPECT_EQ(at(b.patched, "/spec/containers/1/resources"), "{}");  // no GPU: no default
  // ... so with requireRequests the log sidecar still lacks them, and the pod is refused.
  const Decision c = decidePod(
      pod(container("main", R"({"limits":{"nvidia.com/gpu":1}})") + "," + container("log", "{}")),
      p);
  EXPECT_EQ(rules(c), std::vector<std::string>{"container-resources-missing"});
  EXPECT_NE(c.denial->message.find("container \"log\": no cpu request, no memory request"),
            std::string::npos)
      << c.denial->message;
}

TEST(ContainerResources, DefaultsKeepFractionsExact) {
  policy::ContainerRules r;
  r.defaultRequestsPerGpu = {{"cpu", q("500m")}, {"memory", q("1.5G")}};
  const Applied a =
      decideAndApply(pod(container("main", R"({"limits":{"nvidia.com/gpu":3}})")), withRules(r));
  EXPECT_EQ(at(a.patched, "/spec/containers/0/resources/requests"),
            R"({"cpu":"1500m","memory":"4500M"})");
}

TEST(ContainerResources, RequireModeDemandsTheDefaultsWithTheFix) {
  auto p = withRules(defaults());
  p.classes[0].effects.resourceRequests = policy::EffectMode::Require;
  const auto d = decidePod(pod(container("main", R"({"limits":{"nvidia.com/gpu":2}})")), p);
  ASSERT_FALSE(d.allowed());
  EXPECT_TRUE(d.patch.empty());
  // The defaults are not written, so requireRequests sees no requests either.
  EXPECT_EQ(rules(d), (std::vector<std::string>{"resource-requests-required",
                                                "container-resources-missing"}));
  EXPECT_EQ(d.violations[0].message,
            "pod \"t\" has containers without the default requests or limits, which class "
            "training requires rather than adds: set spec.containers[0].resources.requests: "
            R"({"cpu":"16","memory":"128Gi"})");
  // What mutate mode writes passes require mode.
  const Applied mutated = decideAndApply(
      pod(container("main", R"({"limits":{"nvidia.com/gpu":2}})")), withRules(defaults()));
  EXPECT_TRUE(decidePod(mutated.patched, p).violations.empty());
}

TEST(ContainerResources, WarnModeAdmitsWithTheNumbersInTheWarning) {
  policy::ContainerRules r;
  r.maxPerGpu = {{"cpu", q("16")}};
  auto p = withRules(r);
  policy::RolloutRule warn;
  warn.mode = policy::Mode::Warn;
  p.rollout = {warn};
  const auto d = decidePod(
      pod(container("main", R"({"requests":{"cpu":"20"},"limits":{"nvidia.com/gpu":1}})")), p);
  ASSERT_TRUE(d.allowed());
  bool found = false;
  for (const auto& w : d.warnings)
    found =
        found || w.starts_with("gpu-admission (warn mode): pod \"t\" requests 20 cpu for 1 GPU");
  EXPECT_TRUE(found);
}

TEST(ContainerResources, ImagesExemptFromOneRule) {
  policy::ContainerRules r;
  r.requiredEnv = {{"NVIDIA_DRIVER_CAPABILITIES", std::nullopt}};
  auto p = withRules(r);
  policy::RuleExemption e;
  e.rules = {"required-env-missing"};
  e.images = {"pytorch"};
  p.ruleExemptions = {e};
  EXPECT_TRUE(decidePod(pod(container("main", R"({"limits":{"nvidia.com/gpu":1}})")), p)
                  .violations.empty());
}

TEST(ContainerResources, WorkloadTemplatesAreJudgedAtApply) {
  policy::ContainerRules r;
  r.requireRequests = {"memory"};
  const auto p = withRules(r);
  const std::string deployment =
      R"({"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web"},"spec":{"template":{"metadata":{"labels":)" +
      kTraining +
      R"(},"spec":{"containers":[{"name":"main","image":"x","resources":{"limits":{"nvidia.com/gpu":1}}}]}}}})";
  rapidjson::Document d = parse(deployment);
  RequestContext ctx = podContext();
  ctx.group = "apps";
  ctx.kind = "Deployment";
  const Decision out = decide(d, ctx, p, emptyUsage());
  ASSERT_FALSE(out.allowed());
  EXPECT_NE(
      out.denial->message.find("set spec.template.spec.containers[0].resources.requests.memory"),
      std::string::npos)
      << out.denial->message;
}

// docs/examples/container-resources.yaml, dropped in beside the shipped policy: a labelled
// Kubeflow master with only a GPU limit is refused where the rollout enforces and warned about
// elsewhere; the same pod with a memory request passes.
TEST(ContainerResources, ExampleDropInWithTheShippedPolicy) {
  const auto loaded = policy::loadPolicyPaths(
      {GPUA_POLICIES_DIR, std::string(GPUA_EXAMPLES_DIR) + "/container-resources.yaml"});
  ASSERT_TRUE(loaded.ok()) << loaded.errors[0].format();
  const std::string bestEffort =
      gpuPod(R"({"training.kubeflow.org/job-name":"mnist"})", R"({"limits":{"nvidia.com/gpu":1}})");
  rapidjson::Document d = parse(bestEffort);
  const Decision dev =
      decide(d, podContext("ml-dev", {{"env", "dev"}}), *loaded.policy, emptyUsage());
  EXPECT_EQ(dev.className, "training");
  EXPECT_EQ(rules(dev), std::vector<std::string>{"qos-best-effort"});
  EXPECT_FALSE(dev.allowed());
  const Decision prod = decide(d, podContext("ml-prod", {}), *loaded.policy, emptyUsage());
  EXPECT_TRUE(prod.allowed());
  EXPECT_EQ(prod.mode, policy::Mode::Warn);
  const Applied burstable =
      decideAndApply(gpuPod(R"({"training.kubeflow.org/job-name":"mnist"})",
                            R"({"requests":{"memory":"16Gi"},"limits":{"nvidia.com/gpu":1}})"),
                     *loaded.policy, podContext("ml-dev", {{"env", "dev"}}));
  EXPECT_TRUE(burstable.decision.violations.empty());
}

// defaultRequests: every container without the resource gets the fixed request (a GPU container
// the per-GPU one); limitsFromRequests copies the request, written or defaulted, as written; a
// missing resources map is added whole, and the second pass writes nothing.
TEST(ContainerDefaults, FixedRequestsAndCopiedLimitsReachEveryContainer) {
  policy::ContainerRules r;
  r.defaultRequestsPerGpu = {{"cpu", q("8")}};
  r.defaultRequests = {{"cpu", q("250m")}, {"memory", q("256Mi")}};
  r.limitsFromRequests = {"memory", "ephemeral-storage"};
  const Applied run = decideAndApply(
      pod(container("main", R"({"limits":{"nvidia.com/gpu":2}})") + "," +
          R"({"name":"side","image":"fluent-bit"})" + "," +
          container("disk", R"({"requests":{"ephemeral-storage":"1G","memory":1000}})")),
      withRules(r));
  ASSERT_TRUE(run.decision.allowed());
  EXPECT_EQ(
      at(run.patched, "/spec/containers/0/resources"),
      R"({"limits":{"nvidia.com/gpu":2,"memory":"256Mi"},"requests":{"cpu":"16","memory":"256Mi"}})");
  EXPECT_EQ(at(run.patched, "/spec/containers/1/resources"),
            R"({"requests":{"cpu":"250m","memory":"256Mi"},"limits":{"memory":"256Mi"}})");
  EXPECT_EQ(
      at(run.patched, "/spec/containers/2/resources"),
      R"({"requests":{"ephemeral-storage":"1G","memory":1000,"cpu":"250m"},"limits":{"memory":1000,"ephemeral-storage":"1G"}})");
}

// Validation sees what the mutation writes: a copied limit satisfies requireLimits and the
// per-container maximum judges the defaulted request.
TEST(ContainerDefaults, ValidationJudgesTheDefaultsAsWritten) {
  policy::ContainerRules r;
  r.requireLimits = {"memory"};
  r.limitsFromRequests = {"memory"};
  r.defaultRequests = {{"memory", q("1Gi")}};
  EXPECT_TRUE(decidePod(pod(container("main", R"({"limits":{"nvidia.com/gpu":1}})")), withRules(r))
                  .violations.empty());
  r.maxPerContainer = {{"memory", q("512Mi")}, {"cpu", q("2")}};
  const auto d = decidePod(pod(container("main", R"({"limits":{"nvidia.com/gpu":1,"cpu":"3"}})")),
                           withRules(r));
  ASSERT_EQ(rules(d), std::vector<std::string>{"container-resources-exceeded"});
  EXPECT_EQ(d.violations[0].message,
            "pod \"t\" container \"main\": cpu limit 3 is above the 2 per container, memory "
            "limit 1Gi is above the 512Mi per container of class training: lower "
            "spec.containers[0].resources.limits.cpu to at most 2, "
            "spec.containers[0].resources.limits.memory to at most 512Mi, or split the work "
            "across containers or pods");
}

// A class whose rules judge its CPU pods writes its defaults there too, and demands them in
// require mode.
TEST(ContainerDefaults, FollowTheRulesScopeToPodsWithoutGpus) {
  auto p = makePolicy();
  p.classes[2].gpus.request = policy::GpuRequest::Optional;  // interactive: notebooks
  p.classes[2].containers.appliesTo = policy::RuleScope::ClassPods;
  p.classes[2].containers.defaultRequests = {{"cpu", q("500m")}};
  const std::string notebook =
      R"({"metadata":{"name":"nb","labels":{"notebook-name":"ana"}},"spec":{"containers":[{"name":"nb","image":"jupyter"}]}})";
  const Applied run = decideAndApply(notebook, p);
  EXPECT_EQ(at(run.patched, "/spec/containers/0/resources"), R"({"requests":{"cpu":"500m"}})");
  p.classes[2].effects.resourceRequests = policy::EffectMode::Require;
  const auto d = decidePod(notebook, p);
  EXPECT_EQ(rules(d), std::vector<std::string>{"resource-requests-required"});
  EXPECT_TRUE(d.patch.empty() || d.patch[0].path.starts_with("/metadata"));
}

// appliesTo: allPods on the cluster default: a pod no class takes is judged by spec.containers
// and gets its defaults, with the cluster default named in messages; a namespace rule of that
// scope judges it too. Without the scope such a pod is not judged (today's behaviour).
TEST(AllPodsScope, PodsNoClassTakesAreJudgedByTheClusterDefault) {
  auto p = makePolicy();
  const std::string cpuPod =
      R"({"metadata":{"name":"web"},"spec":{"containers":[{"name":"web","image":"nginx"}]}})";
  EXPECT_TRUE(decidePod(cpuPod, p).violations.empty());
  p.allPodsRules.containers.requireLimits = {"memory"};
  p.allPodsRules.containers.defaultRequests = {{"cpu", q("100m")}};
  p.allPodsRules.containers.appliesTo = policy::RuleScope::AllPods;
  p.allPodsJudged = true;
  const auto d = decidePod(cpuPod, p);
  ASSERT_EQ(rules(d), std::vector<std::string>{"container-resources-missing"});
  EXPECT_EQ(d.violations[0].message,
            "pod \"web\" container \"web\": no memory limit; the cluster default "
            "(spec.containers) requires memory limits on every container of its pods: set "
            "spec.containers[0].resources.limits.memory");
  p.allPodsRules.containers.requireLimits.clear();
  const Applied run = decideAndApply(cpuPod, p);
  EXPECT_EQ(run.decision.outcome, Decision::Outcome::NoGpu);
  EXPECT_EQ(at(run.patched, "/spec/containers/0/resources"), R"({"requests":{"cpu":"100m"}})");
  EXPECT_EQ(at(run.patched, "/metadata/annotations"), "");  // no class took it
  // A namespace rule of scope allPods judges it; one of the default scope does not.
  policy::NamespaceRule rule;
  rule.namespaces.names = {"ml-research"};
  rule.requiredLabels = {{"app", {}}};
  p.namespaceRules = {rule};
  EXPECT_FALSE(hasRule(decidePod(cpuPod, p), "required-label-missing"));
  p.namespaceRules[0].appliesTo = policy::RuleScope::AllPods;
  EXPECT_TRUE(hasRule(decidePod(cpuPod, p), "required-label-missing"));
  // ... and a classified pod, as every rule of scope allPods does.
  EXPECT_TRUE(hasRule(decidePod(gpuPod(kTraining, kOneGpu), p), "required-label-missing"));
}

}  // namespace
}  // namespace gpua::engine
