// The container variables through which the NVIDIA container runtime exposes GPUs, and the
// values that expose none. The field guard reads them (visible-devices-without-gpu), the sidecar
// mutation writes them, and the native compiler writes both into CEL: one spelling for all.
#pragma once

#include <string_view>

namespace gpua::engine {

inline constexpr std::string_view kVisibleDevicesVar = "NVIDIA_VISIBLE_DEVICES";
inline constexpr std::string_view kDeviceVariables[] = {kVisibleDevicesVar, "CUDA_VISIBLE_DEVICES"};
// What the mutation writes: the NVIDIA runtime's "no GPU".
inline constexpr std::string_view kNoDevicesValue = "void";
// What hides every GPU: void, none (no GPU, only the driver libraries), or an empty value (the
// runtime then behaves like runc).
inline constexpr std::string_view kHidingValues[] = {"", kNoDevicesValue, "none"};

}  // namespace gpua::engine
