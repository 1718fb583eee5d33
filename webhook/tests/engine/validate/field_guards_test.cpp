// Field guards every judged pod gets: NVIDIA_VISIBLE_DEVICES / CUDA_VISIBLE_DEVICES in containers
// without a GPU, valueFrom, and turning each guard off; the placement guards (forbid*), which
// never count what the pod's class writes or requires.
#include <gtest/gtest.h>

#include "test_support.hpp"

namespace gpua::engine {
namespace {

using namespace testing;

std::string podWithEnv(const std::string& labels, const std::string& resources,
                       const std::string& env) {
  return R"({"metadata":{"name":"p","labels":)" + labels +
         R"(},"spec":{"containers":[{"name":"main","resources":)" + resources +
         R"(},{"name":"side","env":)" + env + "}]}}";
}

TEST(FieldGuards, VisibleDevicesAllWithoutGpuIsRefused) {
  const auto d = decidePod(
      podWithEnv("{}", "{}", R"([{"name":"NVIDIA_VISIBLE_DEVICES","value":"all"}])"), makePolicy());
  ASSERT_FALSE(d.allowed());
  EXPECT_EQ(d.violations[0].rule, "visible-devices-without-gpu");
  EXPECT_EQ(d.denial->message,
            "pod \"p\" container \"side\" sets NVIDIA_VISIBLE_DEVICES to \"all\" but asks for no "
            "GPU, which would hand it the node's GPUs behind the device plugin's back: request "
            "the GPU in resources.limits, or remove NVIDIA_VISIBLE_DEVICES (or set it to void)");
}

TEST(FieldGuards, CudaVisibleDevicesInASidecarOfAGpuPodIsRefused) {
  const auto d = decidePod(
      podWithEnv(kTraining, kOneGpu, R"([{"name":"CUDA_VISIBLE_DEVICES","value":"0,1"}])"),
      makePolicy());
  ASSERT_TRUE(hasRule(d, "visible-devices-without-gpu"));
  EXPECT_NE(d.denial->message.find("container \"side\" sets CUDA_VISIBLE_DEVICES to \"0,1\""),
            std::string::npos);
}

TEST(FieldGuards, VoidEmptyAndGpuContainersPass) {
  const auto policy = makePolicy();
  EXPECT_TRUE(
      decidePod(podWithEnv("{}", "{}", R"([{"name":"NVIDIA_VISIBLE_DEVICES","value":"void"}])"),
                policy)
          .allowed());
  EXPECT_TRUE(
      decidePod(podWithEnv("{}", "{}", R"([{"name":"CUDA_VISIBLE_DEVICES","value":""}])"), policy)
          .allowed());
  // The GPU container itself may name its devices.
  const std::string own =
      R"({"metadata":{"name":"p","labels":{"gpu-admission.io/class":"training"}},"spec":{"containers":[)"
      R"({"name":"main","env":[{"name":"NVIDIA_VISIBLE_DEVICES","value":"all"}],"resources":{"limits":{"nvidia.com/gpu":1}}}]}})";
  EXPECT_TRUE(decidePod(own, policy).allowed());
}

TEST(FieldGuards, ValueFromCannotBeJudgedAndIsRefused) {
  const auto d = decidePod(
      podWithEnv(
          "{}", "{}",
          R"([{"name":"NVIDIA_VISIBLE_DEVICES","valueFrom":{"configMapKeyRef":{"name":"c","key":"k"}}}])"),
      makePolicy());
  ASSERT_TRUE(hasRule(d, "visible-devices-without-gpu"));
  EXPECT_NE(d.denial->message.find("to a value from valueFrom"), std::string::npos);
}

TEST(FieldGuards, EachGuardCanBeTurnedOff) {
  auto policy = makePolicy();
  policy.fieldGuards.visibleDevicesEnv = false;
  EXPECT_TRUE(
      decidePod(podWithEnv("{}", "{}", R"([{"name":"NVIDIA_VISIBLE_DEVICES","value":"all"}])"),
                policy)
          .allowed());
  policy.fieldGuards.gpuPoolTargeting = false;
  EXPECT_TRUE(
      decidePod(gpuPod("{}", "{}", R"("nodeSelector":{"gpu-admission.io/pool":"train"})"), policy)
          .allowed());
  policy.fieldGuards.voidNonGpuContainers = false;
  const auto d = decideAndApply(podWithEnv(kTraining, kOneGpu, "[]"), policy);
  EXPECT_EQ(at(d.patched, "/spec/containers/1/env"), "[]");
}

TEST(FieldGuards, VoidIsWrittenByDefault) {
  const auto d = decideAndApply(podWithEnv(kTraining, kOneGpu, "[]"), makePolicy());
  EXPECT_EQ(at(d.patched, "/spec/containers/1/env"),
            R"([{"name":"NVIDIA_VISIBLE_DEVICES","value":"void"}])");
}

policy::PolicySet guarded() {
  auto p = makePolicy();
  p.fieldGuards.forbidNodeAffinity = true;
  p.fieldGuards.forbidNodeSelector = true;
  p.fieldGuards.forbidNodeName = true;
  p.fieldGuards.forbidTolerations = {"nvidia.com/gpu", "node-role.kubernetes.io/control-plane"};
  return p;
}

std::string cpuPod(const std::string& spec, const std::string& metadata = "") {
  return R"({"metadata":{"name":"p")" + metadata + R"(},"spec":{)" + spec +
         R"(,"containers":[{"name":"main","image":"busybox"}]}})";
}

std::string messageOf(const Decision& d, const std::string& rule) {
  for (const auto& v : d.violations)
    if (v.rule == rule) return v.message;
  return {};
}

TEST(PlacementGuards, OffByDefault) {
  const auto d = decidePod(cpuPod(R"("nodeName":"n1","nodeSelector":{"disk":"ssd"})"));
  EXPECT_TRUE(d.violations.empty());
}

TEST(PlacementGuards, EachFieldHasItsOwnRuleOnAPodWithoutAClass) {
  const auto d = decidePod(
      cpuPod(
          R"("nodeName":"n1","nodeSelector":{"disk":"ssd"},)"
          R"("affinity":{"nodeAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":{"nodeSelectorTerms":[{"matchExpressions":[{"key":"zone","operator":"In","values":["a"]}]}]}}},)"
          R"("tolerations":[{"key":"node-role.kubernetes.io/control-plane","operator":"Exists"}])"),
      guarded());
  EXPECT_EQ(
      messageOf(d, "node-name-forbidden"),
      "pod \"p\" sets spec.nodeName \"n1\", which policy \"cluster\" forbids "
      "(fieldGuards.forbidNodeName): remove spec.nodeName and let the scheduler place the pod");
  EXPECT_EQ(messageOf(d, "node-selector-forbidden"),
            "pod \"p\" selects nodes by spec.nodeSelector (disk), which policy \"cluster\" forbids "
            "(fieldGuards.forbidNodeSelector): remove that key; the policy places pods by class");
  EXPECT_EQ(
      messageOf(d, "node-affinity-forbidden"),
      "pod \"p\" sets node affinity (zone In) in spec.affinity.nodeAffinity, which policy "
      "\"cluster\" forbids (fieldGuards.forbidNodeAffinity): remove it; the policy places pods "
      "by class");
  EXPECT_EQ(messageOf(d, "toleration-forbidden"),
            "pod \"p\" spec.tolerations[0] tolerates the taint "
            "node-role.kubernetes.io/control-plane, which policy \"cluster\" forbids "
            "(fieldGuards.forbidTolerations): remove spec.tolerations[0]; pods reach those nodes "
            "only through a class that places them there");
}

// The webhook's own output passes its own guards, and so does the pod on its second pass.
TEST(PlacementGuards, TheClassOwnPlacementAndTolerationsNeverCount) {
  const Applied run = decideAndApply(gpuPod(kTraining, kOneGpu), guarded());
  ASSERT_TRUE(run.decision.allowed()) << run.decision.denial->message;
  rapidjson::Document patched = parse(run.patched);
  const Decision again = decide(patched, podContext(), guarded(), emptyUsage());
  EXPECT_TRUE(again.violations.empty()) << again.violations[0].message;
  // Carried by the author in require style: the pool's labels and its taint's toleration.
  const auto carried = decidePod(
      gpuPod(
          kTraining, kOneGpu,
          R"("nodeSelector":{"gpu-admission.io/pool":"train","nvidia.com/gpu.product":"NVIDIA-H100-80GB-HBM3"},)"
          R"("tolerations":[{"key":"nvidia.com/gpu","operator":"Exists","effect":"NoSchedule"}])"),
      guarded());
  EXPECT_TRUE(carried.violations.empty()) << carried.violations[0].message;
}

TEST(PlacementGuards, AnotherValueOrABroaderTolerationIsTheAuthors) {
  const auto wrongValue = decidePod(
      gpuPod(kTraining, kOneGpu, R"("nodeSelector":{"gpu-admission.io/pool":"dev"})"), guarded());
  EXPECT_TRUE(hasRule(wrongValue, "node-selector-forbidden"));
  const auto everything =
      decidePod(gpuPod(kTraining, kOneGpu, R"("tolerations":[{"operator":"Exists"}])"), guarded());
  EXPECT_NE(messageOf(everything, "toleration-forbidden")
                .find("tolerates every taint, nvidia.com/gpu included"),
            std::string::npos);
  const auto noEffect = decidePod(
      gpuPod(kTraining, kOneGpu, R"("tolerations":[{"key":"nvidia.com/gpu","operator":"Exists"}])"),
      guarded());
  EXPECT_TRUE(hasRule(noEffect, "toleration-forbidden"));  // wider than the NoSchedule one
}

TEST(PlacementGuards, ADaemonSetKeepsItsControllersNodeTerm) {
  const std::string affinity =
      R"("affinity":{"nodeAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":{"nodeSelectorTerms":[{"matchFields":[{"key":"metadata.name","operator":"In","values":["n1"]}]}]}}})";
  const auto daemon = decidePod(
      cpuPod(affinity, R"(,"ownerReferences":[{"kind":"DaemonSet","name":"ds","uid":"1"}])"),
      guarded());
  EXPECT_TRUE(daemon.violations.empty());
  const auto other = decidePod(cpuPod(affinity), guarded());
  EXPECT_TRUE(messageOf(other, "node-affinity-forbidden")
                  .starts_with("pod \"p\" sets node affinity (matchFields)"))
      << messageOf(other, "node-affinity-forbidden");
}

TEST(PlacementGuards, ARuleExemptionByNamespaceDropsOneGuard) {
  auto p = guarded();
  policy::RuleExemption e;
  e.rules = {"node-selector-forbidden"};
  e.namespaces = policy::NamespaceSelector{};
  e.namespaces->names = {"arm"};
  p.ruleExemptions.push_back(e);
  const std::string pod =
      cpuPod(R"("nodeName":"n1","nodeSelector":{"kubernetes.io/arch":"arm64"})");
  const auto inArm = decidePod(pod, p, podContext("arm"));
  EXPECT_FALSE(hasRule(inArm, "node-selector-forbidden"));
  EXPECT_TRUE(hasRule(inArm, "node-name-forbidden"));
  EXPECT_TRUE(hasRule(decidePod(pod, p, podContext("other")), "node-selector-forbidden"));
}

}  // namespace
}  // namespace gpua::engine
