// One-shot lists of pods, namespaces and nodes from the Kubernetes API (paginated), for
// commands that read the cluster once (`gpu-admission status`) rather than watch it.
#pragma once

#include <rapidjson/document.h>

#include <chrono>
#include <optional>

#include "cluster/api_config.hpp"

namespace gpua::cluster {

struct ClusterObjects {
  // Each a JSON array of the listed items, as `kubectl get ... -o json` would give in "items".
  rapidjson::Document pods{rapidjson::kArrayType};
  rapidjson::Document namespaces{rapidjson::kArrayType};
  rapidjson::Document nodes{rapidjson::kArrayType};
  // With `withDra`: DeviceClasses, ResourceClaims and ResourceSlices (resource.k8s.io/v1), their
  // items with their kinds set, in one array.
  std::optional<rapidjson::Document> dra;
};

// Throws ApiError (HTTP failures, with what to fix), boost::system::system_error (transport)
// or std::runtime_error (a malformed list).
ClusterObjects listClusterObjects(const ApiConfig& api, std::chrono::milliseconds requestTimeout,
                                  int pageSize = 500, bool withDra = false);

}  // namespace gpua::cluster
