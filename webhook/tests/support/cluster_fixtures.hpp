// Fixtures of the inventory and cluster tests: a policy with three pools, classes and a quota,
// and pod builders.
#pragma once

#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include <map>
#include <memory>
#include <string>

#include "policy/loader.hpp"
#include "support/eventually.hpp"
#include "support/json_doc.hpp"
#include "support/temp_dir.hpp"

// Tests build pods with designated initializers that name only the fields they care about.
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

namespace gpua::testing {

// Whole H100s (training), A100-80GB MIG slices (inference), 4-way L4 time-slices (interactive);
// team vision shares 16 GPU-equivalents, at most 14 of them for training.
inline std::string policyYaml(const std::string& quotaUnavailable = "failClosed") {
  return R"(apiVersion: gpu-admission.io/v1
kind: GpuPolicy
metadata: {name: cluster-test}
spec:
  quotaUnavailable: )" +
         quotaUnavailable + R"(
  pools:
  - name: train-h100
    gpu: H100-80GB
    sharing: exclusive
    nodeSelector: {gpu-admission.io/pool: train-h100}
  - name: infer-a100
    gpu: A100-80GB
    sharing: mig
    migProfiles: [1g.10gb, 2g.20gb]
    nodeSelector: {gpu-admission.io/pool: infer-a100}
  - name: dev-l4
    gpu: L4
    sharing: time-slicing
    replicas: 4
    resource: nvidia.com/gpu.shared
    nodeSelector: {gpu-admission.io/pool: dev-l4}
  classes:
  - name: training
    match: {any: [{labels: {gpu-admission.io/class: training}}]}
    pools: [train-h100]
    priorityClassName: gpu-training
    gpus: {maxPerPod: 8}
  - name: inference
    match: {any: [{labels: {gpu-admission.io/class: inference}}]}
    pools: [infer-a100]
    priorityClassName: gpu-inference
    gpus: {migProfile: 1g.10gb, maxPerPod: 2}
  - name: interactive
    match: {any: [{labels: {gpu-admission.io/class: interactive}}]}
    pools: [dev-l4]
    gpus: {maxPerContainer: 1}
  quotas:
  - name: team-vision
    namespaces: {matchLabels: {team: vision}}
    gpuEquivalents: 16
    perClass: {training: 14}
  rollout:
  - mode: enforce
)";
}

inline std::shared_ptr<const policy::PolicySet> loadPolicy(const std::string& yaml) {
  auto result = policy::loadPolicySources({{"test-policy.yaml", yaml}});
  if (!result.ok()) {
    std::string all;
    for (const auto& e : result.errors) all += e.format() + "\n";
    ADD_FAILURE() << "test policy does not load:\n" << all;
  }
  return result.policy;
}

struct PodSpec {
  std::string ns = "vision";
  std::string name;
  std::string uid;  // empty = "uid-" + name
  std::string cls;  // gpu-admission.io/class label
  std::map<std::string, std::string> limits;
  std::string phase = "Running";
  bool deleting = false;
};

inline std::string podJson(const PodSpec& p) {
  std::string limits;
  for (const auto& [k, v] : p.limits)
    limits += (limits.empty() ? "\"" : ",\"") + k + "\":\"" + v + "\"";
  std::string labels = p.cls.empty() ? "{}" : R"({"gpu-admission.io/class":")" + p.cls + "\"}";
  return R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":")" + p.name + R"(","namespace":")" +
         p.ns + R"(","uid":")" + (p.uid.empty() ? "uid-" + p.name : p.uid) + R"(","labels":)" +
         labels + (p.deleting ? R"(,"deletionTimestamp":"2026-01-01T00:00:00Z")" : "") +
         R"(},"spec":{"containers":[{"name":"main","image":"cuda","resources":{"limits":{)" +
         limits + R"(}}}]},"status":{"phase":")" + p.phase + R"("}})";
}

}  // namespace gpua::testing
