// AdmissionReview v1 <-> engine. The server and the CLI's `review` both call review(), so a
// policy author sees exactly what the apiserver would get.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "admission/request_parser.hpp"
#include "engine/context/usage.hpp"
#include "engine/core/decision.hpp"
#include "engine/decide.hpp"
#include "policy/policy_set.hpp"

namespace gpua::admission {

// /mutate answers with the patch and warnings and never denies: for a pod the engine denies it
// admits the pod unchanged and says nothing, so the validating webhook, which judges the same
// pod, is the one that denies (one message, under one webhook name, whatever ran first).
// /validate answers with the verdict and never a patch; Both does everything in one response.
enum class Endpoint { Mutate, Validate, Both };

struct ReviewResult {
  int httpStatus = 200;   // 200 for every well-formed AdmissionReview; 4xx for bad input
  std::string body;       // the AdmissionReview response JSON, or a one-line error for 4xx
  std::string errorKind;  // when httpStatus != 200, a stable id for metrics ("invalid-json"...)
  // Request facts for logs and metrics (empty when unparsable).
  std::string uid, namespaceName, name, kind, operation;
  std::string group;     // request.kind.group ("" for core, "apps", "batch"...)
  std::string userName;  // request.userInfo.username
  bool dryRun = false;
  std::optional<engine::Decision> decision;  // set when the engine ran
};

// Never throws for bad input: 4xx with errorKind. An exception from the engine becomes
// httpStatus 500, errorKind "internal-error" and a message naming the uid, so the apiserver's
// failurePolicy decides.
ReviewResult review(std::string_view requestBody, Endpoint endpoint,
                    const policy::PolicySet& policy, const engine::UsageSnapshot& usage);

// engine::decide's signature. The overload below exists so the CLI (and tests) can put another
// decision function behind the same codec, e.g. one that records or fails.
using DecideFn = engine::Decision (*)(const rapidjson::Value& object,
                                      const engine::RequestContext& context,
                                      const policy::PolicySet& policy,
                                      const engine::UsageSnapshot& usage);

ReviewResult review(std::string_view requestBody, Endpoint endpoint,
                    const policy::PolicySet& policy, const engine::UsageSnapshot& usage,
                    DecideFn decide);

// With node supply beside usage: the engine's capacity checks run when `supply` is available
// and summarized for `policy` (engine::decide with a SupplySnapshot). `reader`: which document
// the review is decided on (request_parser.hpp); every answer is the same with each.
ReviewResult review(std::string_view requestBody, Endpoint endpoint,
                    const policy::PolicySet& policy, const engine::UsageSnapshot& usage,
                    const engine::SupplySnapshot& supply,
                    ReviewReader reader = ReviewReader::ScannedDocument);

// The same into `into`, which a caller keeps from request to request (the request path: its
// strings keep their capacity, so a warm result allocates nothing for them). Every field is
// overwritten.
void review(std::string_view requestBody, Endpoint endpoint, const policy::PolicySet& policy,
            const engine::UsageSnapshot& usage, const engine::SupplySnapshot& supply,
            ReviewResult& into, ReviewReader reader = ReviewReader::ScannedDocument);

}  // namespace gpua::admission
