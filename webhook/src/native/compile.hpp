// The native backstop: the per-object half of a policy compiled into the apiserver's own
// admission (ValidatingAdmissionPolicies for its rules, MutatingAdmissionPolicies for its
// per-pod mutations, with their bindings; CEL), so that the cluster still enforces and mutates
// while the webhook is down. Rules that read other objects (quotas, node supply) cannot be
// compiled; rules not compiled yet are listed too, each with why (`compile --explain`).
// See docs/native-backstop.md.
#pragma once

#include <string>
#include <vector>

#include "policy/policy_set.hpp"

namespace gpua::native {

// The label every compiled object carries: `kubectl get ... -l` selects them all with it.
inline constexpr std::string_view kManagedByLabel = "app.kubernetes.io/managed-by";
inline constexpr std::string_view kManagedBy = "gpu-admission";

// One rule of the engine and what became of it.
struct RuleReport {
  std::string rule;  // the rule id (policy/rule_ids.hpp), or a policy feature ("exempt.images")
  bool compiled = false;
  std::string where;  // compiled: the object that enforces it; else empty
  std::string why;    // why not compiled (or a limitation of the compiled form)
};

struct NativeOutput {
  // name -> manifest (one Kubernetes object per file), in a fixed order.
  std::vector<std::pair<std::string, std::string>> files;
  std::vector<RuleReport> rules;  // every rule id of the engine, in policy/rule_ids order
  // The webhook's mutations compiled into MutatingAdmissionPolicies, in words.
  std::vector<std::string> mutations;
  // What the compiled form does not do that the webhook does, beyond single rules.
  std::vector<std::string> limitations;
};

// Api: objects to create through the API (`kubectl apply`). Static: the same objects as static
// manifests for the apiserver's staticManifestsDir (KEP-5793, ManifestBasedAdmissionControlConfig):
// names ending in .static.k8s.io, files under validating/ and mutating/ (one directory per
// plugin, as the apiserver reads them).
enum class Form { Api, Static };

// Compiles the policy. Deterministic: the same policy gives the same bytes.
NativeOutput compileNative(const policy::PolicySet& policy, Form form = Form::Api);

// The header of every file and of the explain output: what is and is not compiled.
std::string reportText(const NativeOutput& out, std::string_view linePrefix);

}  // namespace gpua::native
