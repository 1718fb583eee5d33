// Node objects (items of `kubectl get nodes -o json`, objects of node watch events) reduced to
// what admission needs: engine::NodeSupply. Tolerant like the rest of cluster/: a missing or
// mistyped field reads as absent, so a strange node can never crash the watch.
#pragma once

#include <rapidjson/document.h>

#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "engine/context/supply.hpp"
#include "policy/policy_set.hpp"

namespace gpua::inventory {

// Which allocatable resources a NodeSupply keeps: every nvidia.com/* name (gpu, mig-*,
// gpu.shared...) plus the names a policy uses for its pools and classes (another vendor's
// resource, say). Everything else a node lists (pods, hugepages, ephemeral-storage) is dropped.
// More units of one device resource than any node has (8 GPUs x 7 MIG slices, or x 48
// time-slicing replicas, is a few hundred): a larger allocatable is malformed and not counted.
inline constexpr int64_t kMaxDeviceUnitsPerNode = 65536;

struct NodeResourceFilter {
  std::vector<std::string> extra;  // sorted, unique
  bool keeps(std::string_view resource) const;
  bool operator==(const NodeResourceFilter&) const = default;
};

// The resource names `policy` uses: pool resources and classes' resolved resources.
NodeResourceFilter nodeResourceFilter(const policy::PolicySet& policy);

// A Node (nullopt when it is not an object or has no metadata.name). Quantities that do not
// parse are left out (allocatable) or read as 0 (cpu, memory), never guessed.
std::optional<engine::NodeSupply> decodeNode(const rapidjson::Value& node,
                                             const NodeResourceFilter& filter = {});

// Kubernetes quantity ("95500m", "2", "1.5", "1056452600Ki", "1e3") in thousandths, rounded up
// as the API server does; nullopt when malformed, negative or beyond int64.
std::optional<int64_t> quantityMillis(std::string_view quantity);

// Unreadable file, invalid JSON, or not a node list: the message names the file and the place.
class NodesFileError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The output of `kubectl get nodes -o json` (a NodeList/List, a bare array, or one Node): every
// item that is a node (kind Node, or no kind unless it came in a list of another kind).
// Throws NodesFileError.
std::vector<engine::NodeSupply> loadNodesFile(const std::string& path,
                                              const NodeResourceFilter& filter = {});
std::vector<engine::NodeSupply> nodesFromList(const rapidjson::Value& list,
                                              const NodeResourceFilter& filter = {});

}  // namespace gpua::inventory
