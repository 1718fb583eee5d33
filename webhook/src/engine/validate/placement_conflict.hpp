// placement-conflict: the pod's own placement (nodeSelector, required node affinity, nodeName)
// and its class's pools cannot both hold on any node, so ANDing the pool into the pod's
// affinity would admit a pod that never schedules. Decided from the selectors alone.
#pragma once

#include <vector>
#include "policy/rule_ids.hpp"

#include "engine/classify/class_placement.hpp"
#include "engine/context/supply.hpp"
#include "engine/core/decision.hpp"
#include "engine/pod/pod_view.hpp"
#include "policy/policy_set.hpp"

namespace gpua::engine {

inline constexpr std::string_view kPlacementConflictRule = policy::rules::kPlacementConflict;

struct PlacementInput {
  const PodView& pod;
  const policy::WorkloadClass& cls;
  const PoolList& pools;  // the class's pools
  // With node data, a pod bound by spec.nodeName is also checked against that node's labels.
  const SupplySnapshot* supply = nullptr;
};

// Appends a placement-conflict violation and returns true when no node's labels could satisfy
// both the pod's selection and any of the class's pools, or (with node data) when the node the
// pod names in spec.nodeName satisfies none of the pools. Anything the engine cannot read, and
// a node it does not know, is assumed satisfiable: the rule never fires on a guess.
bool checkPlacementConflict(const PlacementInput& in, Violations& out);

}  // namespace gpua::engine
