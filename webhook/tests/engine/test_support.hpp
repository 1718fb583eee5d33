// Shared fixtures for the engine tests: a realistic PolicySet built directly in C++ (the YAML
// loader is another component), JSON helpers, and the patch/idempotence checks every mutation
// test uses.
#pragma once

#include <gtest/gtest.h>
#include <rapidjson/document.h>
#include <rapidjson/pointer.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <string>

#include "engine/decide.hpp"
#include "engine/mutate/json_patch_apply.hpp"
#include "policy/policy_set.hpp"

namespace gpua::engine::testing {

inline policy::MatchRule labelRule(const std::string& k, const std::string& v) {
  policy::MatchRule r;
  r.labels[k] = v;
  return r;
}

inline policy::MatchRule labelKeyRule(const std::string& k) {
  policy::MatchRule r;
  r.labelKeys.push_back(k);
  return r;
}

// A typical mixed cluster: H100 training, A100 MIG inference, time-sliced L4 dev, a
// CPU-only batch class, HAMi/Volcano skip rules, a team quota.
inline policy::PolicySet makePolicy() {
  using namespace policy;
  PolicySet p;
  p.name = "cluster";
  p.revision = "r1a2b3";
  p.exemptNamespaces.names = {"kube-system", "gpu-operator"};
  p.hasExemptions = true;

  Pool train;
  train.name = "train-h100";
  train.gpu = "H100-80GB";
  train.nodeSelector = {{"nvidia.com/gpu.product", "NVIDIA-H100-80GB-HBM3"},
                        {"gpu-admission.io/pool", "train"}};
  train.taints = {{"nvidia.com/gpu", "", "NoSchedule"}};
  Pool infer;
  infer.name = "infer-a100";
  infer.gpu = "A100-80GB";
  infer.sharing = Sharing::Mig;
  infer.migProfiles = {"1g.10gb", "2g.20gb", "3g.40gb"};
  infer.nodeSelector = {{"nvidia.com/mig.strategy", "mixed"},
                        {"nvidia.com/mig.config.state", "success"}};
  Pool dev;
  dev.name = "dev-l4";
  dev.gpu = "L4";
  dev.sharing = Sharing::TimeSlicing;
  dev.replicas = 4;
  dev.resource = "nvidia.com/gpu.shared";
  dev.nodeSelector = {{"gpu-admission.io/pool", "dev"}};
  dev.taints = {{"nvidia.com/gpu", "", "NoSchedule"}};
  p.pools = {train, infer, dev};

  WorkloadClass training;
  training.name = "training";
  training.match.any = {labelRule("gpu-admission.io/class", "training"),
                        labelKeyRule("training.kubeflow.org/job-name")};
  training.pools = {"train-h100"};
  training.priorityClassName = "gpu-training";
  training.allowedPriorityClasses = {"gpu-training-high"};
  training.gpus.maxPerPod = 8;
  training.resolvedResource = "nvidia.com/gpu";

  WorkloadClass inference;
  inference.name = "inference";
  inference.match.any = {labelKeyRule("serving.kserve.io/inferenceservice"),
                         labelRule("gpu-admission.io/class", "inference")};
  inference.pools = {"infer-a100"};
  inference.priorityClassName = "gpu-inference";
  inference.gpus.migProfile = "2g.20gb";
  inference.resolvedResource = "nvidia.com/mig-2g.20gb";
  inference.gpuEquivalentPerUnit = 2.0 / 7;

  WorkloadClass interactive;
  interactive.name = "interactive";
  interactive.match.any = {labelRule("gpu-admission.io/class", "interactive"),
                           labelKeyRule("notebook-name")};
  interactive.pools = {"dev-l4"};
  interactive.resolvedResource = "nvidia.com/gpu.shared";
  interactive.gpuEquivalentPerUnit = 0.25;
  interactive.sharedResource = true;
  interactive.maxRunSeconds = 28800;

  WorkloadClass batch;
  batch.name = "batch";
  batch.match.any = {labelRule("gpu-admission.io/class", "batch")};
  batch.gpus.request = GpuRequest::Forbidden;

  p.classes = {training, inference, interactive, batch};

  SkipRule volcano;
  volcano.name = "volcano";
  volcano.match.schedulerNames = {"volcano"};
  SkipRule hami;
  hami.name = "hami";
  hami.match.resources = {"nvidia.com/gpumem*"};
  hami.action = SkipRule::Action::ValidateOnly;
  p.skip = {volcano, hami};

  Quota vision;
  vision.name = "vision";
  vision.namespaces.labels.matchLabels = {{"team", "vision"}};
  vision.gpuEquivalents = 16;
  vision.perClass = {{"training", 12}};
  p.quotas = {vision};

  TemplateKind pytorch;
  pytorch.apiGroup = "kubeflow.org";
  pytorch.kind = "PyTorchJob";
  pytorch.templatePaths = {"spec.pytorchReplicaSpecs.*.template"};
  p.templateKinds = {pytorch};
  p.globalDefaultPriorityClass = "default-priority";
  return p;
}

// Label and resource JSON the tests share.
inline const std::string kTraining = R"({"gpu-admission.io/class":"training"})";
inline const std::string kInference = R"({"gpu-admission.io/class":"inference"})";
inline const std::string kBatch = R"({"gpu-admission.io/class":"batch"})";
inline const std::string kOneGpu = R"({"limits":{"nvidia.com/gpu":1}})";

// The example policy with the train pool also selecting by operators (Gt, DoesNotExist).
inline policy::PolicySet withCountPool() {
  auto p = makePolicy();
  p.pools[0].matchExpressions = {{"nvidia.com/gpu.count", policy::NodeOperator::Gt, {"4"}},
                                 {"example.com/retiring", policy::NodeOperator::DoesNotExist, {}}};
  return p;
}

// Usage that leaves every quota room (available, nothing in use).
inline UsageSnapshot emptyUsage() {
  UsageSnapshot u;
  u.available = true;
  return u;
}

inline RequestContext podContext(const std::string& ns = "ml-research",
                                 kube::Labels labels = {{"team", "ml"}}) {
  RequestContext c;
  c.namespaceName = ns;
  c.namespaceLabels = std::move(labels);
  return c;
}

// makePolicy() with spec.dra: NVIDIA's DRA driver's classes, whole GPUs and MIG by profile.
inline policy::PolicySet draPolicy() {
  auto p = makePolicy();
  p.dra.declared = true;
  p.dra.deviceClasses = {{"gpu.nvidia.com", "nvidia.com/gpu"},
                         {"mig.nvidia.com", "nvidia.com/mig-{profile}"}};
  return p;
}

inline rapidjson::Document parse(const std::string& text) {
  rapidjson::Document d;
  d.Parse(text.c_str(), text.size());
  EXPECT_FALSE(d.HasParseError()) << text;
  return d;
}

inline std::string toJson(const rapidjson::Value& v) {
  rapidjson::StringBuffer b;
  rapidjson::Writer<rapidjson::StringBuffer> w(b);
  v.Accept(w);
  return b.GetString();
}

// A pod with one container and the given labels JSON and resources JSON.
inline std::string gpuPod(const std::string& labels, const std::string& resources,
                          const std::string& extraSpec = "") {
  return R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"trainer-0","labels":)" + labels +
         R"(},"spec":{)" + extraSpec + (extraSpec.empty() ? "" : ",") +
         R"("containers":[{"name":"pytorch","image":"pytorch","resources":)" + resources + "}]}}";
}

// The decision for a pod given as JSON text, with no usage recorded.
inline Decision decidePod(const std::string& podJson,
                          const policy::PolicySet& policy = makePolicy(),
                          const RequestContext& ctx = podContext()) {
  rapidjson::Document pod = parse(podJson);
  return decide(pod, ctx, policy, emptyUsage());
}

inline bool hasRule(const Decision& d, const std::string& rule) {
  for (const auto& v : d.violations)
    if (v.rule == rule) return true;
  return false;
}

struct Applied {
  Decision decision;
  std::string patched;  // the pod after applying the patch
};

// Decides, applies the patch with the strict applier (failing the test if it does not apply),
// and checks that a second pass over the patched pod emits no ops (reinvocation).
inline Applied decideAndApply(const std::string& podJson, const policy::PolicySet& policy,
                              const RequestContext& ctx = podContext(),
                              const UsageSnapshot& usage = emptyUsage()) {
  Applied run;
  rapidjson::Document pod = parse(podJson);
  run.decision = decide(pod, ctx, policy, usage);
  const auto error = applyPatch(pod, run.decision.patch);
  EXPECT_FALSE(error.has_value()) << *error;
  run.patched = toJson(pod);
  if (run.decision.allowed()) {
    const Decision again = decide(pod, ctx, policy, usage);
    EXPECT_TRUE(again.patch.empty())
        << "not idempotent, second pass: " << serializePatch(again.patch)
        << "\npatched pod: " << run.patched;
  }
  return run;
}

// The value at a JSON pointer of the patched pod, as compact JSON ("" when absent).
inline std::string at(const std::string& json, const char* pointer) {
  rapidjson::Document d = parse(json);
  const rapidjson::Value* v = rapidjson::Pointer(pointer).Get(d);
  return v == nullptr ? std::string() : toJson(*v);
}

}  // namespace gpua::engine::testing
