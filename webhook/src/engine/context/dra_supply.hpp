// GPU supply from Dynamic Resource Allocation: the devices of node-local ResourceSlices added to
// their nodes, before the nodes are folded into pools (summarizeSupply). Pure.
//   - A device in a DeviceClass of spec.dra.deviceClasses (the class's selectors, read by
//     engine/core/device_selectors.hpp) counts in NodeSupply::draDevices as the resource the
//     policy counts it as; allocated to a claim, in draAllocated too.
//   - A device in a DeviceClass with spec.extendedResourceName (KEP-5004, whatever the policy)
//     counts in NodeSupply::allocatable under that name: pods asking for it may be served there.
//     Allocated to a claim other than the scheduler's claim for a pod's extended resource (that
//     pod's request is in `allocated` already), it counts in `allocated` too.
// A device whose class membership a selector cannot settle is left out (unknown, not guessed).
#pragma once

#include <vector>

#include "engine/context/dra_objects.hpp"
#include "engine/context/supply.hpp"
#include "policy/policy_set.hpp"

namespace gpua::engine {

void addDraSupply(std::vector<NodeSupply>& nodes, const DraObjects& dra,
                  const policy::PolicySet& policy);

}  // namespace gpua::engine
