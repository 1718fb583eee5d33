#include "cli_harness.hpp"

#include <sys/wait.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <random>
#include <sstream>
#include <stdexcept>

namespace gpua::cli::test {
namespace fs = std::filesystem;

namespace {

std::string shellQuote(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

std::string slurp(const fs::path& p) {
  std::ifstream in(p);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace

RunResult runCli(const std::vector<std::string>& args, const fs::path& cwd) {
  // Appended piece by piece: `"literal" + std::string&&` trips GCC 12's false -Wrestrict at
  // -O3 (GCC bug 105329), which fails the Release build under -Werror.
  std::string cmd = "cd ";
  cmd.append(shellQuote(cwd.string())).append(" && ").append(shellQuote(GPUA_BINARY));
  for (const auto& a : args) cmd.append(" ").append(shellQuote(a));
  const fs::path out = cwd / ".stdout", err = cwd / ".stderr";
  cmd.append(" >").append(shellQuote(out.string())).append(" 2>").append(shellQuote(err.string()));
  const int status = std::system(cmd.c_str());
  RunResult r;
  r.exitCode = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.out = slurp(out);
  r.err = slurp(err);
  return r;
}

ScratchDir::ScratchDir() {
  std::random_device rd;
  path_ =
      fs::temp_directory_path() / ("gpua-cli-test-" + std::to_string(rd()) + std::to_string(rd()));
  fs::create_directories(path_);
}

ScratchDir::~ScratchDir() {
  std::error_code ec;
  fs::remove_all(path_, ec);
}

std::string ScratchDir::write(const std::string& relative, const std::string& text) const {
  const fs::path p = path_ / relative;
  fs::create_directories(p.parent_path());
  std::ofstream(p) << text;
  return p.string();
}

rapidjson::Document parseJson(const std::string& text) {
  // Padded: RapidJSON's SSE2 scanning reads aligned 16-byte blocks past the end of the text.
  std::string padded;
  padded.reserve(text.size() + 64);
  padded.assign(text);
  rapidjson::Document d;
  d.Parse(padded.c_str(), padded.size());
  if (d.HasParseError()) throw std::runtime_error("not JSON: " + text.substr(0, 200));
  return d;
}

const char* const kTestPolicy = R"(apiVersion: gpu-admission.io/v1
kind: GpuPolicy
metadata: {name: cli-test}
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
  unclassifiedGpuPods: deny
  rollout:
  - {namespaces: {matchLabels: {env: dev}}, mode: warn}
  - {mode: enforce}
)";

const char* const kKubeflowWorkerPod = R"({
  "apiVersion": "v1",
  "kind": "Pod",
  "metadata": {
    "name": "mnist-worker-0",
    "namespace": "team-a",
    "labels": {
      "training.kubeflow.org/job-name": "mnist",
      "training.kubeflow.org/replica-type": "worker",
      "training.kubeflow.org/replica-index": "0",
      "training.kubeflow.org/operator-name": "pytorchjob-controller"
    }
  },
  "spec": {
    "restartPolicy": "OnFailure",
    "containers": [{
      "name": "pytorch",
      "image": "kubeflow/pytorch-dist-mnist:latest",
      "args": ["--backend", "nccl"],
      "resources": {"limits": {"nvidia.com/gpu": 1}}
    }]
  }
})";

}  // namespace gpua::cli::test
