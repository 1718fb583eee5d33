// A declarative policy test case (policy-tests/*.yaml, the format of docs/policy-testing.md) as
// read from its file: the object, what the case says about the cluster, and what it expects.
#pragma once

#include <rapidjson/document.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "authoring/cluster_snapshots.hpp"
#include "engine/context/supply.hpp"
#include "engine/context/usage.hpp"
#include "kube/label_selector.hpp"
#include "policy/policy_set.hpp"

namespace gpua::authoring {

struct CaseUsage {
  bool given = false;     // absent: an empty cluster (available, nothing in use)
  bool available = true;  // false: usage unknown, the policy's quotaUnavailable applies
  std::string reason;     // why unavailable, for messages
  std::vector<std::string> podsFiles;  // resolved paths (kubectl get pods -A -o json)
  std::map<std::string, engine::NamespaceUsage, std::less<>> namespaces;  // inline figures
};

struct CaseExpect {
  std::optional<bool> allowed;
  std::optional<std::string> outcome, className, mode;
  std::vector<std::string> messageContains, warningsContain, violations;
  // The exact broken rules, in any order (`noViolations: true` is the empty list), and rules
  // that must not be broken: what shows that a warn- or audit-mode rule passes.
  std::optional<std::vector<std::string>> violationsExactly;
  std::vector<std::string> notViolations;
  std::optional<std::size_t> warningCount;  // exact number of warnings
  // Audit annotation key -> expected value; nullopt = the key must be absent.
  std::vector<std::pair<std::string, std::optional<std::string>>> auditAnnotations;
  bool noWarnings = false;
  bool noPatch = false;
  // JSON pointer -> expected value in the patched object.
  std::vector<std::pair<std::string, std::shared_ptr<const rapidjson::Value>>> patched;
  // JSON pointer -> a value the patched object must not hold there (a missing pointer passes).
  std::vector<std::pair<std::string, std::shared_ptr<const rapidjson::Value>>> notPatched;
  std::vector<std::string> absent;            // JSON pointers that must not exist after the patch
  std::optional<std::string> patchedPodFile;  // resolved path of the whole expected object
  // JSON pointers left out of the patchedPod comparison (e.g. the policy revision annotation,
  // which changes with every policy edit).
  std::vector<std::string> ignore;
};

struct TestCase {
  std::string file;  // the case file, as given on the command line
  std::string name;
  // The request namespace; empty = the object's metadata.namespace, else "default" (as
  // `review` resolves it).
  std::string namespaceName;
  kube::Labels namespaceLabels;
  std::string operation = "CREATE";
  CaseUsage usage;
  // `nodes:` resolved paths (kubectl get nodes -o json); empty = no node data, capacity checks
  // off. Allocated and pending come from usage.podsFiles.
  std::vector<std::string> nodesFiles;
  // `dra:` resolved paths of DRA objects (claims, templates, device classes, slices) the pod's
  // claims resolve against; empty = none known.
  std::vector<std::string> draFiles;
  // The object to review. Values share the ownership of the JSON they were read into, so a case
  // outlives its CaseFile.
  std::shared_ptr<const rapidjson::Value> object;  // null when fixtureErrors says why
  CaseExpect expect;
  // The fixture files of this case that cannot be used (podFile, usage.podsFile, nodes,
  // patchedPod: missing, not a file, or a podFile that does not parse), each a whole line
  // "file:line:col: key.path: message". The case fails with them and is not reviewed; the other
  // cases of its file still run.
  std::vector<std::string> fixtureErrors;
};

struct CaseFile {
  std::string path;
  // The file's own `policies:` (resolved paths); empty = the runner's policy.
  std::vector<std::string> policies;
  std::vector<TestCase> cases;
};

// The usage a case states, resolved against the policy (pods files are counted by `files`,
// inline figures added on top). Throws InputError.
engine::UsageSnapshot caseUsage(const TestCase& c, const policy::PolicySet& policy,
                                const SnapshotReader& files);

// The node supply a case states (`nodes:`), with the GPU devices of `dra`'s slices, summarized
// for the policy; unavailable without one. Throws InputError.
engine::SupplySnapshot caseSupply(const TestCase& c, const policy::PolicySet& policy,
                                  const SnapshotReader& files,
                                  const engine::DraObjects* dra = nullptr);

}  // namespace gpua::authoring
