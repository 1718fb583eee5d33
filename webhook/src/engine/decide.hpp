// The policy engine: a pure function. No sockets, files, clocks or globals.
#pragma once

#include <rapidjson/document.h>

#include <string>

#include "engine/decision.hpp"
#include "engine/usage.hpp"
#include "policy/label_selector.hpp"
#include "policy/policy_set.hpp"

namespace gpua::engine {

struct RequestContext {
  std::string operation = "CREATE";  // CREATE | UPDATE | DELETE | CONNECT
  std::string namespaceName;         // request.namespace (falls back to object.metadata.namespace)
  // Labels of the namespace. Callers fill them from UsageSnapshot::namespaceLabels or the CLI's
  // --namespace-labels; the engine never looks them up itself.
  policy::Labels namespaceLabels;
  std::string userName;
  bool dryRun = false;
  // The apiVersion group and kind of the object: "" + "Pod", "apps" + "Deployment",
  // "kubeflow.org" + "PyTorchJob"...
  std::string group;
  std::string kind = "Pod";
};

// Decides on `object` (a Pod, or a workload whose pod templates are validated).
// Pods get mutation + validation + quota; workloads get validation only (no patch, no quota).
// Ill-formed objects (wrong types where the pod schema is fixed) never throw: the decision
// then denies with a message naming the field.
Decision decide(const rapidjson::Value& object, const RequestContext& context,
                const policy::PolicySet& policy, const UsageSnapshot& usage);

}  // namespace gpua::engine
