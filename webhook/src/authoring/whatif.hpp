// `gpu-admission whatif` without the printing: every pod of a cluster snapshot (`kubectl get
// pods -A -o json`) reviewed as a CREATE through the same round trip as `review`, and the
// results counted per namespace and class.
#pragma once

#include <rapidjson/document.h>

#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "authoring/cluster_snapshots.hpp"
#include "policy/policy_set.hpp"

namespace gpua::authoring {

enum class Verdict { Mutated, Denied, Unchanged, Error };

const char* verdictName(Verdict v);

struct PodResult {
  std::string namespaceName, name;
  // The class, or the outcome in parentheses for pods no class took: "(NoGpu)", "(Exempt)",
  // "(error)" for an object that could not be reviewed.
  std::string group;
  std::string message;  // the denial, the first broken rule's message, or the review error
  Verdict verdict = Verdict::Unchanged;
  std::size_t warnings = 0, patchOps = 0;
  bool brokeRules = false;  // admitted although a rule was broken (warn/audit mode)
  std::string outcome, className;
};

struct WhatifRow {
  int pods = 0, mutated = 0, denied = 0, warned = 0, unchanged = 0, errors = 0;
};

// Rows by (namespace, group), in that order.
using WhatifSummary = std::map<std::pair<std::string, std::string>, WhatifRow>;

// What whatif reads, as file paths.
struct WhatifInputs {
  std::string podsFile;                       // List, PodList or a JSON/YAML array of pods
  std::optional<std::string> namespacesFile;  // `kubectl get ns -o json`: namespace labels
  std::vector<std::string> usageFiles;        // GPU usage for the quota checks
  std::vector<std::string> nodesFiles;        // node supply: the capacity checks run too
  std::vector<std::string> draFiles;          // DRA objects the pods' claims resolve against
};

// Reviews every pod of the snapshot (Namespace items are skipped). Quotas are judged against an
// empty cluster unless usage files are given (the snapshot's own pods would count twice); the
// namespaces file gives labels only. With nodes, the snapshot's pods are what is allocated and
// pending. Throws InputError for a file that cannot be read or is not a pod list.
std::vector<PodResult> runWhatif(const WhatifInputs& inputs, const policy::PolicySet& policy,
                                 const SnapshotReader& files);

// The pods of a list document: its `items`, or the document itself when it is an array.
// Throws InputError naming `file` otherwise.
const rapidjson::Value& podItems(const rapidjson::Value& list, const std::string& file);

// One pod reviewed as a CREATE; a pod that cannot be reviewed is a result with Verdict::Error.
PodResult reviewPod(const rapidjson::Value& item, const policy::PolicySet& policy,
                    const engine::UsageSnapshot& usage, const engine::SupplySnapshot& supply);

WhatifSummary summarize(const std::vector<PodResult>& pods);

}  // namespace gpua::authoring
