// Dynamic Resource Allocation objects (resource.k8s.io/v1: DeviceClass, ResourceClaim,
// ResourceClaimTemplate, ResourceSlice) reduced to what admission reads (engine::DraObjects).
// Tolerant like the node decoder: a missing or mistyped field reads as absent, an object without
// a name is dropped, and lists are bounded as the apiserver bounds them, so a strange object can
// never crash the watch or grow without end.
#pragma once

#include <rapidjson/document.h>

#include <optional>
#include <string_view>

#include "engine/context/dra_objects.hpp"

namespace gpua::inventory {

// The apiserver's own limits (resource.k8s.io/v1 validation), so a decoded object is never
// larger than one the API would store.
inline constexpr std::size_t kMaxDeviceRequests = 32;    // requests per claim
inline constexpr std::size_t kMaxAlternatives = 8;       // firstAvailable entries
inline constexpr std::size_t kMaxSelectors = 32;         // selectors per request or class
inline constexpr std::size_t kMaxAllocatedDevices = 32;  // results of one allocation
inline constexpr std::size_t kMaxReservedFor = 256;      // status.reservedFor
inline constexpr std::size_t kMaxSliceDevices = 128;     // devices of one ResourceSlice
inline constexpr std::size_t kMaxDeviceAttributes = 32;  // attributes + capacity per device

std::optional<engine::DeviceClassInfo> decodeDeviceClass(const rapidjson::Value& v);
std::optional<engine::ResourceClaimInfo> decodeResourceClaim(const rapidjson::Value& v);
std::optional<engine::ClaimTemplateInfo> decodeClaimTemplate(const rapidjson::Value& v);

// The devices of one ResourceSlice and their attributes, keyed by engine::deviceKey, each
// attribute name qualified by the slice's driver when written bare.
using SliceDevices =
    std::map<std::string, std::map<std::string, std::string, std::less<>>, std::less<>>;
struct SliceInfo {
  std::string nodeName;  // spec.nodeName; "" for slices of several nodes
  SliceDevices devices;
};
std::optional<SliceInfo> decodeResourceSlice(const rapidjson::Value& v);

// Adds every DRA object of `v` (one object, a bare array, or a List / <Kind>List of them, as
// `kubectl get deviceclasses,resourceclaims,resourceclaimtemplates,resourceslices -A -o json`
// prints) to `out` and marks it known. Objects of other kinds are skipped; returns how many
// objects were taken.
std::size_t addDraObjects(const rapidjson::Value& v, engine::DraObjects& out);

}  // namespace gpua::inventory
