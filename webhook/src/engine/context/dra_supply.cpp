#include "engine/context/dra_supply.hpp"

#include <map>
#include <set>

#include "engine/core/device_selectors.hpp"

namespace gpua::engine {

namespace {

const DeviceAttributes kNoAttributes;

// Devices allocated to claims: all of them, and those of claims other than KEP-5004's.
struct Allocations {
  std::set<std::string, std::less<>> any;
  std::set<std::string, std::less<>> byUserClaims;
};

Allocations allocationsOf(const DraObjects& dra) {
  Allocations out;
  for (const auto& [key, claim] : dra.claims)
    for (const auto& d : claim.devices) {
      std::string device = deviceKey(d.driver, d.pool, d.device);
      if (!dra.extendedResourceClaims.contains(key)) out.byUserClaims.insert(device);
      out.any.insert(std::move(device));
    }
  return out;
}

bool inClass(const DeviceClassInfo& cls, std::string_view driver, const DeviceAttributes& attrs) {
  return selectorsHold(cls.selectors, driver, attrs).value_or(false);
}

void add(ResourceUnits& units, const std::string& resource, int64_t n) {
  auto it = units.find(resource);
  if (it == units.end()) it = units.emplace(resource, 0).first;
  it->second += n;
}

// The policy's GPU class the device is in, as the resource it counts as; "" when none (or a
// MIG device whose profile attribute is missing).
std::string policyResource(const DraObjects& dra, const policy::PolicySet& policy,
                           std::string_view driver, const DeviceAttributes& attrs) {
  for (const auto& dc : policy.dra.deviceClasses) {
    const auto cls = dra.deviceClasses.find(dc.name);
    if (cls == dra.deviceClasses.end() || !inClass(cls->second, driver, attrs)) continue;
    if (!dc.countsByProfile()) return dc.countsAs;
    const auto profile = attrs.find(dc.profileAttribute);
    return profile == attrs.end() ? std::string() : dc.resourceFor(profile->second);
  }
  return {};
}

}  // namespace

void addDraSupply(std::vector<NodeSupply>& nodes, const DraObjects& dra,
                  const policy::PolicySet& policy) {
  if (dra.deviceNodes.empty()) return;
  std::map<std::string_view, NodeSupply*> byName;
  for (auto& n : nodes) byName.emplace(n.name, &n);
  const Allocations allocated = allocationsOf(dra);
  for (const auto& [key, nodeName] : dra.deviceNodes) {
    const auto node = byName.find(nodeName);
    if (node == byName.end()) continue;
    const std::string_view driver = std::string_view(key).substr(0, key.find('\n'));
    const auto a = dra.deviceAttributes.find(key);
    const DeviceAttributes& attrs = a == dra.deviceAttributes.end() ? kNoAttributes : a->second;
    NodeSupply& n = *node->second;
    if (const std::string resource = policyResource(dra, policy, driver, attrs);
        !resource.empty()) {
      add(n.draDevices, resource, 1);
      if (allocated.any.contains(key)) add(n.draAllocated, resource, 1);
    }
    for (const auto& [name, cls] : dra.deviceClasses) {
      if (cls.extendedResourceName.empty() || !inClass(cls, driver, attrs)) continue;
      add(n.allocatable, cls.extendedResourceName, 1);
      if (allocated.byUserClaims.contains(key)) add(n.allocated, cls.extendedResourceName, 1);
      break;  // one device serves one extended name at a time
    }
  }
}

}  // namespace gpua::engine
