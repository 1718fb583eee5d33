#include "bench_inputs.hpp"

#include <cstdio>
#include <cstdlib>

namespace gpua::bench {

namespace {

std::string envVars(std::size_t count, const std::string& prefix) {
  std::string out;
  for (std::size_t i = 0; i < count; ++i) {
    if (i) out += ',';
    out += R"({"name":")" + prefix + "_VAR_" + std::to_string(i) + R"(","value":"value-)" +
           std::to_string(i * 7919) + R"(-/opt/ml/config/settings/training/resnet50/imagenet-1k"})";
  }
  return out;
}

std::string container(const std::string& name, std::size_t envCount, int gpus) {
  std::string c = R"({"name":")" + name + R"(","image":"nvcr.io/nvidia/pytorch:24.05-py3",)";
  c += R"("command":["torchrun"],"args":["--nnodes=4","--nproc_per_node=8","train.py",)";
  c += R"("--config=/etc/config/train.yaml"],)";
  c += R"("env":[)" + envVars(envCount, name) + R"(],)";
  c += R"("ports":[{"containerPort":23456,"name":"pytorchjob-port","protocol":"TCP"}],)";
  c += R"("resources":{"limits":{"cpu":"32","memory":"256Gi")";
  if (gpus > 0) c += R"(,"nvidia.com/gpu":")" + std::to_string(gpus) + '"';
  c += R"(},"requests":{"cpu":"16","memory":"128Gi")";
  if (gpus > 0) c += R"(,"nvidia.com/gpu":")" + std::to_string(gpus) + '"';
  c += R"(}},"volumeMounts":[{"name":"dshm","mountPath":"/dev/shm"},)";
  c += R"({"name":"data","mountPath":"/data","readOnly":true},)";
  c += R"({"name":"config","mountPath":"/etc/config"},)";
  c +=
      R"({"name":"kube-api-access-x7k2p","mountPath":"/var/run/secrets/kubernetes.io/serviceaccount","readOnly":true}],)";
  c += R"("terminationMessagePath":"/dev/termination-log","terminationMessagePolicy":"File",)";
  c += R"("imagePullPolicy":"IfNotPresent"})";
  return c;
}

std::string volumes() {
  return R"([{"name":"dshm","emptyDir":{"medium":"Memory","sizeLimit":"64Gi"}},)"
         R"({"name":"data","persistentVolumeClaim":{"claimName":"imagenet-train"}},)"
         R"({"name":"config","configMap":{"name":"train-config","defaultMode":420}},)"
         R"({"name":"kube-api-access-x7k2p","projected":{"defaultMode":420,"sources":[)"
         R"({"serviceAccountToken":{"expirationSeconds":3607,"path":"token"}},)"
         R"({"configMap":{"name":"kube-root-ca.crt","items":[{"key":"ca.crt","path":"ca.crt"}]}},)"
         R"({"downwardAPI":{"items":[{"path":"namespace","fieldRef":{"apiVersion":"v1","fieldPath":"metadata.namespace"}}]}}]}}])";
}

std::string metadata(const std::string& name, bool kubeflow) {
  std::string m = R"({"name":")" + name + R"(","namespace":"team-a","labels":{)";
  if (!kubeflow) {
    m += R"("serving.kserve.io/inferenceservice":"llama-7b","component":"predictor",)";
  } else {
    m += R"("training.kubeflow.org/job-name":"resnet-imagenet",)"
         R"("training.kubeflow.org/operator-name":"pytorchjob-controller",)"
         R"("training.kubeflow.org/replica-index":"1",)"
         R"("training.kubeflow.org/replica-type":"worker",)";
  }
  m += R"("team":"vision"},"annotations":{"sidecar.istio.io/inject":"false"},)";
  m += R"("ownerReferences":[{"apiVersion":"kubeflow.org/v1","kind":"PyTorchJob",)"
       R"("name":"resnet-imagenet","uid":"0c2b6a4e-8d7f-4d61-9f2b-5b0e7e7c9a11",)"
       R"("controller":true,"blockOwnerDeletion":true}]})";
  return m;
}

std::string spec(const std::string& containers, bool withVolumes) {
  std::string s = R"({"containers":[)" + containers + "],";
  if (withVolumes) s += R"("volumes":)" + volumes() + ",";
  s +=
      R"("restartPolicy":"OnFailure","terminationGracePeriodSeconds":30,)"
      R"("dnsPolicy":"ClusterFirst","serviceAccountName":"default","schedulerName":"default-scheduler",)"
      R"("securityContext":{},"enableServiceLinks":true,"priority":0,"preemptionPolicy":"PreemptLowerPriority",)"
      R"("tolerations":[{"key":"node.kubernetes.io/not-ready","operator":"Exists","effect":"NoExecute","tolerationSeconds":300},)"
      R"({"key":"node.kubernetes.io/unreachable","operator":"Exists","effect":"NoExecute","tolerationSeconds":300}]})";
  return s;
}

std::string pod(const std::string& meta, const std::string& sp) {
  return R"({"apiVersion":"v1","kind":"Pod","metadata":)" + meta + R"(,"spec":)" + sp + "}";
}

}  // namespace

const char* podSizeName(PodSize size) {
  switch (size) {
    case PodSize::Small:
      return "small";
    case PodSize::Typical:
      return "typical";
    case PodSize::Large:
      return "large";
  }
  return "?";
}

std::string podJson(PodSize size) {
  switch (size) {
    case PodSize::Small:
      return pod(metadata("llama-7b-predictor-00001-deployment-7d9f8", false),
                 spec(container("kserve-container", 4, 1), false));
    case PodSize::Typical:
      return pod(metadata("resnet-imagenet-worker-1", true),
                 spec(container("pytorch", 44, 8), true));
    case PodSize::Large: {
      std::string cs;
      for (int i = 0; i < 24; ++i) {
        if (i) cs += ',';
        cs += container("shard-" + std::to_string(i), 80, i == 0 ? 8 : 0);
      }
      return pod(metadata("llm-serving-dp-0", true), spec(cs, true));
    }
  }
  return {};
}

std::string admissionReviewJson(const std::string& podText, const std::string& uid) {
  std::string out = R"({"kind":"AdmissionReview","apiVersion":"admission.k8s.io/v1","request":{)";
  out += R"("uid":")" + uid + R"(",)";
  out += R"("kind":{"group":"","version":"v1","kind":"Pod"},)";
  out += R"("resource":{"group":"","version":"v1","resource":"pods"},)";
  out += R"("requestKind":{"group":"","version":"v1","kind":"Pod"},)";
  out += R"("requestResource":{"group":"","version":"v1","resource":"pods"},)";
  out += R"("namespace":"team-a","operation":"CREATE",)";
  out +=
      R"("userInfo":{"username":"system:serviceaccount:kubeflow:training-operator",)"
      R"("uid":"8b1e5d3c-0f6a-4b8e-9c2d-7a4f1e6b3c90",)"
      R"("groups":["system:serviceaccounts","system:serviceaccounts:kubeflow","system:authenticated"]},)";
  out += R"("object":)" + podText + ",";
  out += R"("oldObject":null,"dryRun":false,)";
  out += R"("options":{"kind":"CreateOptions","apiVersion":"meta.k8s.io/v1"}}})";
  return out;
}

std::string shippedPolicyDir() {
  if (const char* dir = std::getenv("GPUA_BENCH_POLICIES")) return dir;
  return GPUA_POLICIES;
}

policy::LoadResult loadShippedPolicy() {
  return policy::loadPolicyPaths({shippedPolicyDir()});
}

std::shared_ptr<const policy::PolicySet> mustLoad(policy::LoadResult r, const char* what) {
  if (!r.ok()) {
    std::fprintf(stderr, "bench: %s does not load: %s\n", what,
                 r.errors.empty() ? "?" : r.errors.front().format().c_str());
    std::exit(1);
  }
  return r.policy;
}

std::shared_ptr<const policy::PolicySet> shippedPolicy() {
  static const auto p = mustLoad(loadShippedPolicy(), "the shipped policy");
  return p;
}

std::string manyClassesPolicyYaml(std::size_t classes) {
  std::string y =
      "apiVersion: gpu-admission.io/v1\nkind: GpuPolicy\nmetadata: {name: bench-many}\nspec:\n"
      "  exempt: {namespaces: [kube-system]}\n  unclassifiedGpuPods: deny\n  pools:\n";
  for (std::size_t i = 0; i < classes; ++i) {
    const auto n = std::to_string(i);
    y += "  - name: pool-" + n + "\n    gpu: H100-80GB\n    sharing: exclusive\n";
    y += "    nodeSelector: {gpu-admission.io/pool: pool-" + n +
         ", nvidia.com/gpu.product: NVIDIA-H100-80GB-HBM3}\n";
    y += "    taints: [{key: nvidia.com/gpu, effect: NoSchedule}]\n";
  }
  y += "  classes:\n";
  for (std::size_t i = 0; i + 1 < classes; ++i) {
    const auto n = std::to_string(i);
    y += "  - name: class-" + n + "\n    match: {any: [{labels: {bench.example/class: c" + n +
         "}}, {labelKeys: [bench.example/key-" + n + "]}]}\n";
    y += "    pools: [pool-" + n + "]\n    priorityClassName: prio-" + n +
         "\n    gpus: {maxPerPod: 8}\n";
  }
  y += "  - name: training\n    match: {any: [{labelKeys: [training.kubeflow.org/job-name]}]}\n";
  y += "    pools: [pool-" + std::to_string(classes - 1) + "]\n";
  y += "    priorityClassName: gpu-training\n    gpus: {maxPerPod: 8}\n";
  y += "  rollout:\n  - mode: warn\n";
  return y;
}

std::string listPodJson(std::size_t i) {
  const auto n = std::to_string(i);
  const auto ns = "ns-" + std::to_string(i % 200);
  const bool mig = i % 3 == 1;
  std::string p = R"({"metadata":{"name":"worker-)" + n + R"(","namespace":")" + ns +
                  R"(","uid":"3f1c2a9e-0000-4000-8000-)" + std::string(12 - n.size(), '0') + n +
                  R"(","labels":{"training.kubeflow.org/job-name":"job-)" + std::to_string(i / 8) +
                  R"("},"annotations":{"gpu-admission.io/class":")" +
                  (mig ? "inference" : "training") + R"("}},)";
  p += R"("spec":{"containers":[{"name":"main","image":"nvcr.io/nvidia/pytorch:24.05-py3",)";
  p += R"("resources":{"limits":{"cpu":"8",")" +
       std::string(mig ? "nvidia.com/mig-2g.20gb" : "nvidia.com/gpu") + R"(":")" +
       std::to_string(1 + i % 4) + R"("}}}]},"status":{"phase":"Running"}})";
  return p;
}

std::string podListJson(std::size_t count) {
  std::string out = "[";
  out.reserve(count * 420);
  for (std::size_t i = 0; i < count; ++i) {
    if (i) out += ',';
    out += listPodJson(i);
  }
  return out + "]";
}

}  // namespace gpua::bench
