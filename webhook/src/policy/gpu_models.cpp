#include "policy/gpu_models.hpp"

#include <charconv>

namespace gpua::policy {

namespace {

// MIG profiles per NVIDIA's MIG user guide (listed in docs/policy-reference.md, "GPU models").
// Models without MIG have zero compute slices and no profiles. B200 does support MIG, but its
// profiles are not in the table yet, so it is listed as a whole-GPU-only model.
std::vector<GpuModel> buildTable() {
  const std::vector<std::string> a100_80{"1g.10gb", "1g.20gb", "2g.20gb",
                                         "3g.40gb", "4g.40gb", "7g.80gb"};
  return {
      {"A100-40GB",
       "NVIDIA-A100-SXM4-40GB",
       40,
       7,
       {"1g.5gb", "1g.10gb", "2g.10gb", "3g.20gb", "4g.20gb", "7g.40gb"}},
      {"A100-80GB", "NVIDIA-A100-SXM4-80GB", 80, 7, a100_80},
      {"H100-80GB", "NVIDIA-H100-80GB-HBM3", 80, 7, a100_80},
      {"H100-NVL",
       "NVIDIA-H100-NVL",
       94,
       7,
       {"1g.12gb", "1g.24gb", "2g.24gb", "3g.47gb", "4g.47gb", "7g.94gb"}},
      {"H200",
       "NVIDIA-H200",
       141,
       7,
       {"1g.18gb", "1g.35gb", "2g.35gb", "3g.71gb", "4g.71gb", "7g.141gb"}},
      {"A30", "NVIDIA-A30", 24, 4, {"1g.6gb", "2g.12gb", "4g.24gb"}},
      {"L4", "NVIDIA-L4", 24, 0, {}},
      {"L40S", "NVIDIA-L40S", 48, 0, {}},
      {"T4", "Tesla-T4", 16, 0, {}},
      {"A10", "NVIDIA-A10", 24, 0, {}},
      {"V100", "Tesla-V100-SXM2-16GB", 16, 0, {}},
      {"B200", "NVIDIA-B200", 180, 0, {}},
  };
}

// Parses a run of decimal digits at the front of `s`; advances `s` past them.
std::optional<int> takeNumber(std::string_view& s) {
  int value = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
  if (ec != std::errc() || end == s.data()) return std::nullopt;
  s.remove_prefix(static_cast<std::size_t>(end - s.data()));
  return value;
}

}  // namespace

const std::vector<GpuModel>& gpuModels() {
  static const std::vector<GpuModel> table = buildTable();
  return table;
}

const GpuModel* findGpuModel(std::string_view key) {
  for (const auto& m : gpuModels())
    if (m.key == key) return &m;
  return nullptr;
}

std::optional<int> migProfileSlices(std::string_view profile) {
  // Shape: <slices>g.<memory>gb, both positive decimal numbers.
  if (profile.empty() || profile.front() == '+' || profile.front() == '-') return std::nullopt;
  auto slices = takeNumber(profile);
  if (!slices || *slices <= 0 || !profile.starts_with("g.")) return std::nullopt;
  profile.remove_prefix(2);
  if (profile.empty() || profile.front() == '+' || profile.front() == '-') return std::nullopt;
  auto memory = takeNumber(profile);
  if (!memory || *memory <= 0 || profile != "gb") return std::nullopt;
  return slices;
}

}  // namespace gpua::policy
