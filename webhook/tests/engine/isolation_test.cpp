// Node isolation for pods without GPUs, pool selection operators, nodeSelector placement and
// checkpoint declarations (docs/policy-reference.md).
#include <gtest/gtest.h>

#include "test_support.hpp"

namespace gpua::engine {
namespace {

using namespace testing;

Decision run(const std::string& pod, const policy::PolicySet& p,
             const RequestContext& ctx = podContext()) {
  rapidjson::Document d = parse(pod);
  return decide(d, ctx, p, emptyUsage());
}

bool hasRule(const Decision& d, const std::string& rule) {
  for (const auto& v : d.violations)
    if (v.rule == rule) return true;
  return false;
}

const std::string kTraining = R"({"gpu-admission.io/class":"training"})";
const std::string kBatch = R"({"gpu-admission.io/class":"batch"})";
const std::string kOneGpu = R"({"limits":{"nvidia.com/gpu":1}})";

std::string podWithEnv(const std::string& labels, const std::string& resources,
                       const std::string& env) {
  return R"({"metadata":{"name":"p","labels":)" + labels +
         R"(},"spec":{"containers":[{"name":"main","resources":)" + resources +
         R"(},{"name":"side","env":)" + env + "}]}}";
}

// --- field guards -------------------------------------------------------------------------

TEST(FieldGuards, VisibleDevicesAllWithoutGpuIsRefused) {
  const auto d = run(podWithEnv("{}", "{}", R"([{"name":"NVIDIA_VISIBLE_DEVICES","value":"all"}])"),
                     makePolicy());
  ASSERT_FALSE(d.allowed());
  EXPECT_EQ(d.violations[0].rule, "visible-devices-without-gpu");
  EXPECT_EQ(d.denial->message,
            "pod \"p\" container \"side\" sets NVIDIA_VISIBLE_DEVICES to \"all\" but asks for no "
            "GPU, which would hand it the node's GPUs behind the device plugin's back: request "
            "the GPU in resources.limits, or remove NVIDIA_VISIBLE_DEVICES (or set it to void)");
}

TEST(FieldGuards, CudaVisibleDevicesInASidecarOfAGpuPodIsRefused) {
  const auto d =
      run(podWithEnv(kTraining, kOneGpu, R"([{"name":"CUDA_VISIBLE_DEVICES","value":"0,1"}])"),
          makePolicy());
  ASSERT_TRUE(hasRule(d, "visible-devices-without-gpu"));
  EXPECT_NE(d.denial->message.find("container \"side\" sets CUDA_VISIBLE_DEVICES to \"0,1\""),
            std::string::npos);
}

TEST(FieldGuards, VoidEmptyAndGpuContainersPass) {
  const auto policy = makePolicy();
  EXPECT_TRUE(
      run(podWithEnv("{}", "{}", R"([{"name":"NVIDIA_VISIBLE_DEVICES","value":"void"}])"), policy)
          .allowed());
  EXPECT_TRUE(run(podWithEnv("{}", "{}", R"([{"name":"CUDA_VISIBLE_DEVICES","value":""}])"), policy)
                  .allowed());
  // The GPU container itself may name its devices.
  const std::string own =
      R"({"metadata":{"name":"p","labels":{"gpu-admission.io/class":"training"}},"spec":{"containers":[)"
      R"({"name":"main","env":[{"name":"NVIDIA_VISIBLE_DEVICES","value":"all"}],"resources":{"limits":{"nvidia.com/gpu":1}}}]}})";
  EXPECT_TRUE(run(own, policy).allowed());
}

TEST(FieldGuards, ValueFromCannotBeJudgedAndIsRefused) {
  const auto d = run(
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
      run(podWithEnv("{}", "{}", R"([{"name":"NVIDIA_VISIBLE_DEVICES","value":"all"}])"), policy)
          .allowed());
  policy.fieldGuards.gpuPoolTargeting = false;
  EXPECT_TRUE(run(gpuPod("{}", "{}", R"("nodeSelector":{"gpu-admission.io/pool":"train"})"), policy)
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

// --- pool targeting with operators ------------------------------------------------------

policy::PolicySet withCountPool() {
  auto p = makePolicy();
  p.pools[0].matchExpressions = {{"nvidia.com/gpu.count", policy::NodeOperator::Gt, {"4"}},
                                 {"example.com/retiring", policy::NodeOperator::DoesNotExist, {}}};
  return p;
}

TEST(PoolTargeting, NodeSelectorSatisfyingAGtRequirementTargetsThePool) {
  const auto d =
      run(gpuPod("{}", "{}", R"("nodeSelector":{"nvidia.com/gpu.count":"8"})"), withCountPool());
  ASSERT_FALSE(d.allowed());
  EXPECT_EQ(d.violations[0].rule, "gpu-pool-without-request");
  EXPECT_NE(
      d.denial->message.find("targets GPU pool train-h100 (nodeSelector nvidia.com/gpu.count=8)"),
      std::string::npos);
  // 2 GPUs do not satisfy Gt 4, and a DoesNotExist key is also true of CPU nodes.
  EXPECT_TRUE(
      run(gpuPod("{}", "{}", R"("nodeSelector":{"nvidia.com/gpu.count":"2"})"), withCountPool())
          .allowed());
}

TEST(PoolTargeting, AffinityExistsOnAPoolKeyTargetsThePool) {
  const std::string affinity =
      R"("affinity":{"nodeAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":{"nodeSelectorTerms":[)"
      R"({"matchExpressions":[{"key":"nvidia.com/gpu.count","operator":"Exists"}]}]}}})";
  const auto d = run(gpuPod("{}", "{}", affinity), withCountPool());
  ASSERT_FALSE(d.allowed());
  EXPECT_NE(d.denial->message.find("(node affinity nvidia.com/gpu.count Exists)"),
            std::string::npos);
}

TEST(PoolTargeting, CpuPoolsAreNotGpuPools) {
  auto p = makePolicy();
  policy::Pool cpu;
  cpu.name = "cpu-general";
  cpu.cpuOnly = true;
  cpu.nodeSelector = {{"node-role.example.com/cpu", "true"}};
  p.cpuPools = {cpu};
  EXPECT_TRUE(run(gpuPod("{}", "{}", R"("nodeSelector":{"node-role.example.com/cpu":"true"})"), p)
                  .allowed());
}

TEST(PoolTargeting, NodeNameOnAGpuNodeNeedsNodeData) {
  const auto p = makePolicy();
  NodeSupply gpuNode;
  gpuNode.name = "h100-7";
  gpuNode.ready = true;
  gpuNode.labels = {{"nvidia.com/gpu.product", "NVIDIA-H100-80GB-HBM3"},
                    {"gpu-admission.io/pool", "train"}};
  NodeSupply cpuNode;
  cpuNode.name = "cpu-3";
  cpuNode.ready = true;
  const SupplySnapshot supply = summarizeSupply({{gpuNode, cpuNode}, {}}, p);
  auto runOn = [&](const std::string& node, const SupplySnapshot& s) {
    rapidjson::Document doc = parse(gpuPod("{}", "{}", "\"nodeName\":\"" + node + "\""));
    return decide(doc, podContext(), p, emptyUsage(), s);
  };
  const auto d = runOn("h100-7", supply);
  ASSERT_FALSE(d.allowed());
  EXPECT_EQ(d.violations[0].rule, "gpu-pool-without-request");
  EXPECT_NE(d.denial->message.find("targets GPU pool train-h100 (spec.nodeName h100-7)"),
            std::string::npos)
      << d.denial->message;
  EXPECT_TRUE(runOn("cpu-3", supply).allowed());
  // Without node data the node's pool is unknown: not a finding.
  EXPECT_TRUE(runOn("h100-7", noSupply()).allowed());
}

// --- affinity with operators -------------------------------------------------------------

TEST(AffinityOperators, PoolExpressionsAreWrittenWithTheirOperators) {
  const auto d = decideAndApply(gpuPod(kTraining, kOneGpu), withCountPool());
  ASSERT_TRUE(d.decision.allowed());
  EXPECT_EQ(
      at(d.patched,
         "/spec/affinity/nodeAffinity/requiredDuringSchedulingIgnoredDuringExecution/"
         "nodeSelectorTerms"),
      R"([{"matchExpressions":[)"
      R"({"key":"gpu-admission.io/pool","operator":"In","values":["train"]},)"
      R"({"key":"nvidia.com/gpu.product","operator":"In","values":["NVIDIA-H100-80GB-HBM3"]},)"
      R"({"key":"nvidia.com/gpu.count","operator":"Gt","values":["4"]},)"
      R"({"key":"example.com/retiring","operator":"DoesNotExist"}]}])");
}

// --- CPU pools -----------------------------------------------------------------------------

policy::PolicySet withCpuPools() {
  auto p = makePolicy();
  policy::Pool cpu;
  cpu.name = "cpu-etl";
  cpu.cpuOnly = true;
  cpu.resource.clear();
  cpu.nodeSelector = {{"example.com/pool", "etl"}};
  cpu.matchExpressions = {{"nvidia.com/gpu.present", policy::NodeOperator::DoesNotExist, {}}};
  cpu.taints = {{"example.com/etl", "", "NoSchedule"}};
  p.cpuPools = {cpu};
  for (auto& c : p.classes)
    if (c.name == "batch") {
      c.cpuPools = {"cpu-etl"};
      c.priorityClassName = "batch-low";
    }
  return p;
}

TEST(CpuPools, ForbiddenClassPodsGetCpuPlacementTolerationAndPriority) {
  const auto d = decideAndApply(gpuPod(kBatch, "{}"), withCpuPools());
  ASSERT_TRUE(d.decision.allowed()) << d.decision.denial->message;
  EXPECT_EQ(at(d.patched,
               "/spec/affinity/nodeAffinity/requiredDuringSchedulingIgnoredDuringExecution/"
               "nodeSelectorTerms"),
            R"([{"matchExpressions":[{"key":"example.com/pool","operator":"In","values":["etl"]},)"
            R"({"key":"nvidia.com/gpu.present","operator":"DoesNotExist"}]}])");
  EXPECT_EQ(at(d.patched, "/spec/tolerations"),
            R"([{"key":"example.com/etl","operator":"Exists","effect":"NoSchedule"}])");
  EXPECT_EQ(at(d.patched, "/spec/priorityClassName"), R"("batch-low")");
  // No NVIDIA_VISIBLE_DEVICES for a CPU pod: it never lands on a GPU node.
  EXPECT_EQ(at(d.patched, "/spec/containers/0/env"), "");
}

TEST(CpuPools, OptionalClassSendsCpuPodsToCpuPoolsAndGpuPodsToGpuPools) {
  auto p = withCpuPools();
  for (auto& c : p.classes)
    if (c.name == "interactive") {
      c.gpus.request = policy::GpuRequest::Optional;
      c.cpuPools = {"cpu-etl"};
    }
  const std::string labels = R"({"gpu-admission.io/class":"interactive"})";
  const auto cpu = decideAndApply(gpuPod(labels, "{}"), p);
  EXPECT_NE(cpu.patched.find("\"etl\""), std::string::npos);
  const auto gpu = decideAndApply(gpuPod(labels, R"({"limits":{"nvidia.com/gpu.shared":1}})"), p);
  EXPECT_EQ(gpu.patched.find("\"etl\""), std::string::npos);
  EXPECT_NE(gpu.patched.find("\"dev\""), std::string::npos);
}

TEST(CpuPools, AForbiddenClassWithoutCpuPoolsStillGetsItsPriorityClass) {
  auto p = makePolicy();
  for (auto& c : p.classes)
    if (c.name == "batch") c.priorityClassName = "batch-low";
  const auto d = decideAndApply(gpuPod(kBatch, "{}"), p);
  EXPECT_EQ(at(d.patched, "/spec/priorityClassName"), R"("batch-low")");
  EXPECT_EQ(at(d.patched, "/spec/affinity"), "");
}

// --- nodeSelector placement ----------------------------------------------------------------

policy::PolicySet withSelectorPlacement(policy::Placement::OnConflict onConflict) {
  auto p = makePolicy();
  p.classes[0].placement.via = policy::Placement::Via::NodeSelector;
  p.classes[0].placement.onConflict = onConflict;
  return p;
}

TEST(NodeSelectorPlacement, AddsTheWholeMapWhenAbsent) {
  const auto d = decideAndApply(gpuPod(kTraining, kOneGpu),
                                withSelectorPlacement(policy::Placement::OnConflict::Keep));
  ASSERT_TRUE(d.decision.allowed());
  EXPECT_EQ(
      at(d.patched, "/spec/nodeSelector"),
      R"({"gpu-admission.io/pool":"train","nvidia.com/gpu.product":"NVIDIA-H100-80GB-HBM3"})");
  EXPECT_EQ(at(d.patched, "/spec/affinity"), "");
}

TEST(NodeSelectorPlacement, AddsMissingKeysEscaped) {
  const auto d = decideAndApply(
      gpuPod(kTraining, kOneGpu, R"("nodeSelector":{"gpu-admission.io/pool":"train"})"),
      withSelectorPlacement(policy::Placement::OnConflict::Keep));
  ASSERT_TRUE(d.decision.allowed());
  bool escaped = false;
  for (const auto& op : d.decision.patch)
    escaped = escaped || op.path == "/spec/nodeSelector/nvidia.com~1gpu.product";
  EXPECT_TRUE(escaped) << serializePatch(d.decision.patch);
}

const std::string kOtherPool = R"("nodeSelector":{"gpu-admission.io/pool":"other"})";

TEST(NodeSelectorPlacement, KeepDeniesTheConflict) {
  const auto d = run(gpuPod(kTraining, kOneGpu, kOtherPool),
                     withSelectorPlacement(policy::Placement::OnConflict::Keep));
  ASSERT_FALSE(d.allowed());
  EXPECT_EQ(d.violations[0].rule, "node-selector-conflict");
  EXPECT_EQ(d.denial->message,
            "pod \"trainer-0\" sets spec.nodeSelector gpu-admission.io/pool=\"other\" but class "
            "training places its pods on pool train-h100, which needs "
            "gpu-admission.io/pool=\"train\": remove that nodeSelector entry (the webhook sets it) "
            "or set it to \"train\"");
}

TEST(NodeSelectorPlacement, KeepInWarnModeKeepsTheValueAndAddsTheRest) {
  auto p = withSelectorPlacement(policy::Placement::OnConflict::Keep);
  p.rollout = {{std::nullopt, policy::Mode::Warn}};
  const auto d = decideAndApply(gpuPod(kTraining, kOneGpu, kOtherPool), p);
  ASSERT_TRUE(d.decision.allowed());
  EXPECT_EQ(at(d.patched, "/spec/nodeSelector/gpu-admission.io~1pool"), R"("other")");
  EXPECT_EQ(at(d.patched, "/spec/nodeSelector/nvidia.com~1gpu.product"),
            R"("NVIDIA-H100-80GB-HBM3")");
}

TEST(NodeSelectorPlacement, DenyInWarnModeLeavesTheSelectorAlone) {
  auto p = withSelectorPlacement(policy::Placement::OnConflict::Deny);
  p.rollout = {{std::nullopt, policy::Mode::Warn}};
  const auto d = decideAndApply(gpuPod(kTraining, kOneGpu, kOtherPool), p);
  ASSERT_TRUE(d.decision.allowed());
  EXPECT_TRUE(hasRule(d.decision, "node-selector-conflict"));
  EXPECT_EQ(at(d.patched, "/spec/nodeSelector"), R"({"gpu-admission.io/pool":"other"})");
}

TEST(NodeSelectorPlacement, OverwriteReplacesTheValue) {
  const auto d = decideAndApply(gpuPod(kTraining, kOneGpu, kOtherPool),
                                withSelectorPlacement(policy::Placement::OnConflict::Overwrite));
  ASSERT_TRUE(d.decision.allowed());
  EXPECT_TRUE(d.decision.violations.empty());
  EXPECT_EQ(at(d.patched, "/spec/nodeSelector/gpu-admission.io~1pool"), R"("train")");
}

// --- checkpoints ---------------------------------------------------------------------------

policy::PolicySet withCheckpoints() {
  auto p = makePolicy();
  p.classes[0].requireCheckpoint = policy::CheckpointRule{{"checkpoints"}};
  return p;
}

std::string trainingPod(const std::string& annotations, const std::string& volumes,
                        const std::string& mounts) {
  return R"({"metadata":{"name":"t","labels":{"gpu-admission.io/class":"training"},"annotations":)" +
         annotations + R"(},"spec":{"volumes":)" + volumes +
         R"(,"containers":[{"name":"main","volumeMounts":)" + mounts +
         R"(,"resources":{"limits":{"nvidia.com/gpu":1}}}]}})";
}

TEST(Checkpoint, MissingDeclarationSaysHowToDeclare) {
  const auto d = run(trainingPod("{}", "[]", "[]"), withCheckpoints());
  ASSERT_FALSE(d.allowed());
  EXPECT_EQ(d.violations[0].rule, "checkpoint-missing");
  EXPECT_EQ(d.denial->message,
            "pod \"t\" is in class training, which requires a checkpoint, and can be preempted, "
            "but declares no checkpoint: annotate the pod gpu-admission.io/checkpoint: "
            "pvc:<claim> (a PersistentVolumeClaim the pod mounts) or a URI such as "
            "s3://bucket/run, or mount a volume named checkpoints");
}

TEST(Checkpoint, MountedPvcUriAndNamedVolumePass) {
  const auto p = withCheckpoints();
  const std::string pvc = R"([{"name":"ck","persistentVolumeClaim":{"claimName":"run-ckpt"}}])";
  const std::string mount = R"([{"name":"ck","mountPath":"/ckpt"}])";
  EXPECT_TRUE(run(trainingPod(R"({"gpu-admission.io/checkpoint":"pvc:run-ckpt"})", pvc, mount), p)
                  .allowed());
  EXPECT_TRUE(run(trainingPod(R"({"gpu-admission.io/checkpoint":"s3://ml/run-7"})", "[]", "[]"), p)
                  .allowed());
  EXPECT_TRUE(run(trainingPod("{}", R"([{"name":"checkpoints","emptyDir":{}}])",
                              R"([{"name":"checkpoints","mountPath":"/c"}])"),
                  p)
                  .allowed());
}

TEST(Checkpoint, UnmountedPvcIsDangling) {
  const std::string pvc = R"([{"name":"ck","persistentVolumeClaim":{"claimName":"run-ckpt"}}])";
  const auto d = run(trainingPod(R"({"gpu-admission.io/checkpoint":"pvc:run-ckpt"})", pvc, "[]"),
                     withCheckpoints());
  ASSERT_FALSE(d.allowed());
  EXPECT_EQ(d.violations[0].rule, "checkpoint-dangling");
  EXPECT_NE(d.denial->message.find("mounts no volume of PersistentVolumeClaim \"run-ckpt\""),
            std::string::npos);
}

TEST(Checkpoint, NeitherPvcNorUriIsInvalid) {
  const auto d = run(trainingPod(R"({"gpu-admission.io/checkpoint":"/mnt/ckpt"})", "[]", "[]"),
                     withCheckpoints());
  ASSERT_FALSE(d.allowed());
  EXPECT_EQ(d.violations[0].rule, "checkpoint-invalid");
}

TEST(Checkpoint, APriorityTierCanRequireIt) {
  auto p = makePolicy();
  p.classes[1].pools = {"train-h100", "infer-a100"};  // inference may run where training runs
  p.priorityTiers = {{"gpu-training", 1000, policy::PriorityTier::Preemption::PreemptLowerPriority,
                      policy::CheckpointRule{}},
                     {"gpu-inference", 10000,
                      policy::PriorityTier::Preemption::PreemptLowerPriority, std::nullopt}};
  const auto d = run(trainingPod("{}", "[]", "[]"), p);
  ASSERT_FALSE(d.allowed());
  EXPECT_EQ(d.violations[0].rule, "checkpoint-missing");
  EXPECT_NE(d.denial->message.find("runs in priority tier gpu-training, which requires"),
            std::string::npos);
  EXPECT_EQ(d.priority,
            "gpu-training (value 1000, preemptionPolicy PreemptLowerPriority; preemptible by "
            "class inference (gpu-inference) on pool train-h100)");
  p.classes[1].pools = {"infer-a100"};
  EXPECT_EQ(run(trainingPod("{}", "[]", "[]"), p).priority,
            "gpu-training (value 1000, preemptionPolicy PreemptLowerPriority; no class of a "
            "higher tier shares its pools)");
}

}  // namespace
}  // namespace gpua::engine
