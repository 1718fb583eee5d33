// Built-in table of NVIDIA GPU models: MIG profiles and compute slices. Used by the loader to
// validate pools and by the loader to resolve GPU-equivalents per resource unit.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gpua::policy {

struct GpuModel {
  std::string key;           // policy key, e.g. "A100-80GB"
  std::string productLabel;  // typical nvidia.com/gpu.product value, e.g. "NVIDIA-A100-SXM4-80GB"
  int memoryGb = 0;
  int computeSlices = 0;  // 7 for A100/H100/H200, 4 for A30, 0 when the model has no MIG
  std::vector<std::string> migProfiles;  // "1g.10gb", ... empty when no MIG
  bool migCapable() const { return computeSlices > 0; }
};

// Every model in the table, in a stable order.
const std::vector<GpuModel>& gpuModels();

// nullptr when the key is unknown.
const GpuModel* findGpuModel(std::string_view key);

// Compute slices of a MIG profile name: "3g.40gb" -> 3; nullopt when malformed.
std::optional<int> migProfileSlices(std::string_view profile);

}  // namespace gpua::policy
