// Usage snapshots from files, for the CLI's review/test/whatif: the output of
// `kubectl get pods -A -o json`, optionally with namespaces (`kubectl get ns -o json`) mixed into
// the same list or given as a second file. Counts exactly like the live ledger.
#pragma once

#include <rapidjson/document.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "engine/context/usage.hpp"
#include "policy/policy_set.hpp"

namespace gpua::inventory {

// Unreadable file, invalid JSON, or not a list: the message names the file and the place.
class UsageFileError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// `list` is a v1 List/PodList/NamespaceList object ({"items":[...]}), a bare array of objects,
// or a single Pod/Namespace. Items with kind "Namespace" give labels; every other item is a pod.
// The result has available == true.
engine::UsageSnapshot usageFromPodList(const rapidjson::Value& list,
                                       const policy::PolicySet& policy);

// Reads and merges the files (pods and/or namespaces in any of them). Throws UsageFileError.
engine::UsageSnapshot usageFromFiles(const std::vector<std::string>& paths,
                                     const policy::PolicySet& policy);

}  // namespace gpua::inventory
