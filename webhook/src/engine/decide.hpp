// The policy engine: a pure function. No sockets, files, clocks or globals.
#pragma once

#include <rapidjson/document.h>

#include <string>

#include "engine/context/supply.hpp"
#include "engine/context/usage.hpp"
#include "engine/core/decision.hpp"
#include "kube/label_selector.hpp"
#include "policy/policy_set.hpp"

namespace gpua::engine {

struct RequestContext {
  std::string operation = "CREATE";  // CREATE | UPDATE | DELETE | CONNECT
  std::string namespaceName;         // request.namespace (falls back to object.metadata.namespace)
  // Labels of the namespace. Callers fill them from UsageSnapshot::namespaceLabels or the CLI's
  // --namespace-labels; the engine never looks them up itself.
  kube::Labels namespaceLabels;
  std::string userName;
  bool dryRun = false;
  // The apiVersion group and kind of the object: "" + "Pod", "apps" + "Deployment",
  // "kubeflow.org" + "PyTorchJob"...
  std::string group;
  std::string kind = "Pod";
  // Whether the apiserver applies this decision's patch before it stores the object: true for
  // a mutating webhook and for the CLI, false for a validating webhook, which sees the object
  // as it will be stored (mutated, or not when the mutating webhook did not run). Quotas charge
  // what the stored pod will hold.
  bool patchApplied = true;
};

// Decides on `object` (a Pod, or a workload whose pod templates are validated).
// Pods get mutation + validation + quota; workloads get validation only (no patch, no quota).
// Ill-formed objects (wrong types where the pod schema is fixed) never throw: the decision
// then denies with a message naming the field.
Decision decide(const rapidjson::Value& object, const RequestContext& context,
                const policy::PolicySet& policy, const UsageSnapshot& usage);

// The same with node supply: the capacity checks (no-capacity, gpu-stranding, the waiting hint)
// run when `supply` is available and was summarized for `policy`; placement-conflict also
// checks the node a pod names in spec.nodeName. The overload above decides with no node data.
Decision decide(const rapidjson::Value& object, const RequestContext& context,
                const policy::PolicySet& policy, const UsageSnapshot& usage,
                const SupplySnapshot& supply);

// The same into `into`, which is cleared first (Decision::clear: its patch, changes and
// warnings keep their memory, so a caller deciding into one Decision again and again, as the
// request path does per thread, writes them without allocating once warm).
void decide(const rapidjson::Value& object, const RequestContext& context,
            const policy::PolicySet& policy, const UsageSnapshot& usage,
            const SupplySnapshot& supply, Decision& into);

// The snapshot of "no node source": capacity checks off.
const SupplySnapshot& noSupply();

}  // namespace gpua::engine
