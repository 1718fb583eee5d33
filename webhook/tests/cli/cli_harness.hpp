// Runs the gpu-admission binary and gives each test its own scratch directory.
#pragma once

#include <rapidjson/document.h>

#include <filesystem>
#include <string>
#include <vector>

namespace gpua::cli::test {

struct RunResult {
  int exitCode = -1;
  std::string out, err;
};

// Runs `gpu-admission args...` (arguments are shell-quoted) with the scratch dir as cwd.
RunResult runCli(const std::vector<std::string>& args, const std::filesystem::path& cwd);

// A fresh temporary directory, removed on destruction.
class ScratchDir {
 public:
  ScratchDir();
  ~ScratchDir();
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  const std::filesystem::path& path() const { return path_; }
  // Writes `text` to path()/relative (creating directories) and returns the full path.
  std::string write(const std::string& relative, const std::string& text) const;

 private:
  std::filesystem::path path_;
};

// The policy every CLI test runs against (see cli_harness.cpp): a training class on an H100
// pool, an inference class on MIG, exempt kube-system, warn rollout for env=dev.
extern const char* const kTestPolicy;

// A Kubeflow PyTorchJob worker pod as the training operator creates it.
extern const char* const kKubeflowWorkerPod;

rapidjson::Document parseJson(const std::string& text);

}  // namespace gpua::cli::test
