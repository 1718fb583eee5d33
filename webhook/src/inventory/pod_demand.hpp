// What a pod takes of one node: Kubernetes' effective pod request
// (engine/pod/pod_request_fold.hpp), for the resources a NodeResourceFilter keeps. The scheduler
// fits a pod against a node with the same numbers, so allocated and no-capacity agree with it.
#pragma once

#include <rapidjson/document.h>

#include "engine/context/supply.hpp"
#include "inventory/node_decode.hpp"

namespace gpua::inventory {

// Per resource: max(sum of app containers + native sidecars, the largest of each init container
// plus the sidecars started before it). A container's request falls back to its limit
// (extended resources default requests to limits). Quantities that are not whole count 0.
// Resources with demand 0 are left out.
engine::ResourceUnits podNodeDemand(const rapidjson::Value& pod, const NodeResourceFilter& filter);

}  // namespace gpua::inventory
