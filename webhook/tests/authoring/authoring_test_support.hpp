// Fixtures of the authoring tests: a small policy loaded from YAML in memory, objects as JSON,
// a scratch directory for the code that reads files, and a SnapshotReader that hands out fixed
// snapshots and records what it was asked for (the real one is the cluster adapter's).
#pragma once

#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "authoring/cluster_snapshots.hpp"
#include "authoring/documents.hpp"
#include "policy/loader.hpp"

namespace gpua::authoring::testing {

// A training class on an H100 pool (maxPerPod 8), an inference class on MIG, exempt
// kube-system, a quota of 12 GPU-equivalents for team-a, unclassified GPU pods denied, warn
// rollout for env=dev.
inline constexpr const char* kPolicy = R"(apiVersion: gpu-admission.io/v1
kind: GpuPolicy
metadata: {name: authoring-test}
spec:
  exempt: {namespaces: {names: [kube-system]}}
  pools:
  - name: train-h100
    gpu: H100-80GB
    sharing: exclusive
    nodeSelector: {gpu-admission.io/pool: train}
    taints: [{key: nvidia.com/gpu, effect: NoSchedule}]
  - name: infer-a100
    gpu: A100-80GB
    sharing: mig
    migProfiles: [1g.10gb, 2g.20gb]
    nodeSelector: {nvidia.com/mig.strategy: mixed}
  classes:
  - name: training
    match: {any: [{labels: {gpu-admission.io/class: training}},
                  {labelKeys: [training.kubeflow.org/job-name]}]}
    pools: [train-h100]
    priorityClassName: gpu-training
    gpus: {maxPerPod: 8}
  - name: inference
    match: {any: [{labelKeys: [serving.kserve.io/inferenceservice]}]}
    pools: [infer-a100]
    gpus: {migProfile: 2g.20gb}
  quotas:
  - {name: team-a, namespaces: {names: [team-a]}, gpuEquivalents: 12}
  unclassifiedGpuPods: deny
  rollout:
  - {namespaces: {matchLabels: {env: dev}}, mode: warn}
  - {mode: enforce}
)";

inline std::shared_ptr<const policy::PolicySet> testPolicy(const char* yaml = kPolicy) {
  auto loaded = policy::loadPolicySources({{"policy.yaml", yaml}});
  if (!loaded.ok()) throw std::runtime_error(loaded.errors.front().format());
  return loaded.policy;
}

// A training pod in team-a asking for `gpus` GPUs.
inline std::string trainingPod(int gpus = 1, const std::string& name = "worker-0") {
  std::string pod = R"({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": ")";
  pod.append(name).append(R"(", "namespace": "team-a",)");
  pod.append(R"( "labels": {"training.kubeflow.org/job-name": "mnist"}},)");
  pod.append(R"( "spec": {"containers": [{"name": "c", "image": "pytorch",)");
  pod.append(R"( "resources": {"limits": {"nvidia.com/gpu": )");
  pod.append(std::to_string(gpus)).append("}}}]}}");
  return pod;
}

inline rapidjson::Document json(const std::string& text) {
  return parseDocument(text, "<test>");
}

class ScratchDir {
 public:
  ScratchDir() {
    std::random_device rd;
    path_ = std::filesystem::temp_directory_path() /
            ("gpua-authoring-test-" + std::to_string(rd()) + std::to_string(rd()));
    std::filesystem::create_directories(path_);
  }
  ~ScratchDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;

  const std::filesystem::path& path() const { return path_; }
  // Writes path()/relative, creating directories; returns the full path.
  std::string write(const std::string& relative, const std::string& text) const {
    const auto p = path_ / relative;
    std::filesystem::create_directories(p.parent_path());
    std::ofstream(p) << text;
    return p.string();
  }

 private:
  std::filesystem::path path_;
};

// Hands out `usageToReturn` and `supplyToReturn` (and no DRA objects), and records the files it was
// asked to read.
class FakeSnapshotReader final : public SnapshotReader {
 public:
  engine::UsageSnapshot usageToReturn = emptyUsage();
  engine::SupplySnapshot supplyToReturn;
  mutable std::vector<std::vector<std::string>> usageCalls;
  mutable std::vector<std::pair<std::vector<std::string>, std::vector<std::string>>> supplyCalls;

  engine::UsageSnapshot usage(const std::vector<std::string>& files,
                              const policy::PolicySet&) const override {
    usageCalls.push_back(files);
    return usageToReturn;
  }
  engine::SupplySnapshot supply(const std::vector<std::string>& nodesFiles,
                                const std::vector<std::string>& podsFiles, const policy::PolicySet&,
                                const engine::DraObjects* = nullptr) const override {
    supplyCalls.emplace_back(nodesFiles, podsFiles);
    return supplyToReturn;
  }
  mutable std::vector<std::vector<std::string>> draCalls;
  void addDra(const std::vector<std::string>& files, const policy::PolicySet&,
              engine::UsageSnapshot& usage) const override {
    draCalls.push_back(files);
    usage.dra = std::make_shared<engine::DraObjects>();
  }
};

}  // namespace gpua::authoring::testing
