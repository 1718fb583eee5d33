// Runs one object through the admission path exactly as the API server's request would go:
// wrap it in an AdmissionReview v1 request, call admission::review(Endpoint::Both), decode the
// response (base64 JSON Patch included) and apply the patch with the engine's strict applier.
// `review`, `test` and `whatif` all go through here, so what a policy author sees is what the
// webhook answers.
#pragma once

#include <rapidjson/document.h>

#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "engine/context/supply.hpp"
#include "engine/context/usage.hpp"
#include "engine/core/decision.hpp"
#include "engine/core/patch_op.hpp"
#include "policy/policy_set.hpp"

namespace gpua::authoring {

// The object cannot be reviewed (not a Kubernetes object, a kind we do not review), or the
// response could not be decoded or its patch does not apply. what() says which.
class ReviewError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct ReviewRequest {
  const rapidjson::Value* object = nullptr;  // a Pod or a workload with pod templates
  std::string namespaceName;  // empty: the object's metadata.namespace, else "default"
  // How messages name where namespaceName came from: `review` has a flag, `test` a case key.
  std::string namespaceOrigin = "--namespace";
  std::string operation = "CREATE";
  std::string userName = "gpu-admission-cli";
};

struct ReviewReport {
  std::string group, version, kind;  // of the object ("" group = core)
  std::string namespaceName;
  std::string displayName;  // "name", or "generateName*" for generated names

  bool allowed = true;
  int statusCode = 0;  // response.status.code when denied
  std::string statusReason, statusMessage;
  // Whole warnings: the response's lines of at most 120 characters joined back (`response`
  // holds them as the apiserver gets them).
  std::vector<std::string> warnings;
  std::map<std::string, std::string> auditAnnotations;
  engine::Patch patch;                       // decoded from response.patch; empty = none
  std::string patchJson;                     // the decoded RFC 6902 array, "" when none
  std::optional<engine::Decision> decision;  // the engine's view (class, reason, outcome)
  // What the policy's priority tiers make of the pod's priority class (engine::describePriority),
  // "" without one.
  std::string priority;
  rapidjson::Document sent;      // the object as sent in the request (namespace filled in)
  rapidjson::Document patched;   // `sent` with the patch applied
  rapidjson::Document response;  // the AdmissionReview response as received
};

// The namespace a request for `object` goes to: `given` when set, else the object's
// metadata.namespace, else "default" (what runReview uses).
std::string requestNamespace(const rapidjson::Value& object, const std::string& given);

// Throws ReviewError.
ReviewReport runReview(const ReviewRequest& request, const policy::PolicySet& policy,
                       const engine::UsageSnapshot& usage);
// With node supply (--nodes-from): the capacity checks run too.
ReviewReport runReview(const ReviewRequest& request, const policy::PolicySet& policy,
                       const engine::UsageSnapshot& usage, const engine::SupplySnapshot& supply);

// The decoded patch as a pretty JSON array ("[]" when empty).
std::string patchToPrettyJson(const ReviewReport& report);

}  // namespace gpua::authoring
