// The Dynamic Resource Allocation objects (resource.k8s.io/v1) the engine reads to learn what a
// pod's claims ask for: DeviceClasses, ResourceClaims, ResourceClaimTemplates and the devices of
// ResourceSlices. Filled by the cluster watch (or `--dra-from` files for the CLI) and handed to
// the engine inside the UsageSnapshot; the engine only reads them.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace gpua::engine {

// One way to satisfy a request: `exactly`, or one entry of `firstAvailable`.
struct DeviceAlternative {
  std::string name;  // the subrequest's name (firstAvailable), else the request's
  std::string deviceClass;
  bool all = false;   // allocationMode All: every matching device, unknown until allocated
  int64_t count = 1;  // allocationMode ExactCount
  std::vector<std::string> selectors;  // CEL expressions of selectors[].cel
};

// spec.devices.requests[]: `exactly` gives one alternative, `firstAvailable` several in order.
struct DeviceRequest {
  std::string name;
  std::vector<DeviceAlternative> alternatives;
};

// status.allocation.devices.results[]: `request` is "<request>" or "<request>/<subrequest>".
struct AllocatedDevice {
  std::string request;
  std::string driver;
  std::string pool;
  std::string device;
};

struct ResourceClaimInfo {
  std::string namespaceName;
  std::string name;
  std::vector<DeviceRequest> requests;
  bool allocated = false;  // status.allocation present
  std::vector<AllocatedDevice> devices;
  std::vector<std::string> reservedFor;  // uids of status.reservedFor[] (pods using it)
};

struct ClaimTemplateInfo {
  std::string namespaceName;
  std::string name;
  std::vector<DeviceRequest> requests;  // spec.spec.devices.requests
};

struct DeviceClassInfo {
  std::string name;
  std::string extendedResourceName;  // spec.extendedResourceName (KEP-5004), "" when absent
  std::vector<std::string> selectors;
};

struct DraObjects {
  // False when no DRA objects are known at all (no watch, no files): every claim is unresolved.
  bool known = false;
  // Keyed "<namespace>/<name>".
  std::map<std::string, ResourceClaimInfo, std::less<>> claims;
  std::map<std::string, ClaimTemplateInfo, std::less<>> templates;
  std::map<std::string, DeviceClassInfo, std::less<>> deviceClasses;  // by name
  // Attributes of the devices ResourceSlices publish, keyed by deviceKey(), each
  // attribute name qualified by its domain ("gpu.nvidia.com/profile") and its value as text.
  std::map<std::string, std::map<std::string, std::string, std::less<>>, std::less<>>
      deviceAttributes;
  // The node of each device of a node-local ResourceSlice (spec.nodeName), same keys; devices
  // of slices for several nodes (nodeSelector, allNodes) are in no node's supply.
  std::map<std::string, std::string, std::less<>> deviceNodes;
  // From the pods the watch sees: the class each pod was admitted in (uid -> the
  // gpu-admission.io/class annotation), so a claim's GPUs count in its pods' class; and the
  // claims the scheduler made for pods' extended resources served by DRA (KEP-5004, the pods'
  // status.extendedResourceClaimStatus, "<namespace>/<name>"), which count as the pod's
  // extended resources already, never twice.
  std::map<std::string, std::string, std::less<>> podClasses;
  std::set<std::string, std::less<>> extendedResourceClaims;
};

// "<namespace>/<name>" of a claim or template.
inline std::string draKey(std::string_view ns, std::string_view name) {
  std::string key(ns);
  key += '/';
  key += name;
  return key;
}

// A device of a ResourceSlice: pool names may hold '/', so the parts are joined by a newline,
// which no name can hold.
inline std::string deviceKey(std::string_view driver, std::string_view pool,
                             std::string_view device) {
  std::string key(driver);
  key += '\n';
  key += pool;
  key += '\n';
  key += device;
  return key;
}

}  // namespace gpua::engine
