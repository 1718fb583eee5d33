// Decision -> AdmissionReview v1 response JSON, as docs/operations.md ("Endpoints") describes:
// HTTP 200 always, denial as allowed:false + status{403, Forbidden}, patch as padded base64.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "admission/review.hpp"
#include "engine/core/decision.hpp"

namespace gpua::admission {

// Limit for a denial's status.message; kubectl prints it in one line after the webhook's name.
inline constexpr std::size_t kMaxDenialMessageBytes = 2048;

// The warnings an endpoint returns for a decision (sanitized and budgeted).
//  - Mutate and Both: the engine's warnings (what changed, warn-mode violations).
//  - Validate: the engine's warnings when the pod needs no change (the mutating webhook already
//    ran: its warnings about changes are identical and the apiserver drops identical warning
//    texts). When the pod still needs changes, the mutating webhook was skipped (failurePolicy
//    Ignore, matchConditions): warnings that claim a change would lie, so /validate reports the
//    warn-mode violations and one note listing the changes that were not applied.
std::vector<std::string> warningsFor(const engine::Decision& decision, Endpoint endpoint);

// /mutate never denies: the validating webhook judges the same unchanged pod and denies it
// under its own name, which is the one kubectl prints and the one with failurePolicy Fail.
// The response admits such a pod silently, and the server counts it as "deferred".
bool defersDenial(const engine::Decision& decision, Endpoint endpoint);

// `decision` null: admitted unchanged (a request the engine does not look at). A denial on
// Endpoint::Mutate is admitted unchanged too, with no warnings: /validate reports it.
std::string writeResponse(std::string_view uid, const engine::Decision* decision,
                          Endpoint endpoint);
// The same into `out`, replacing what it held (its capacity kept: the request path's form).
void writeResponse(std::string_view uid, const engine::Decision* decision, Endpoint endpoint,
                   std::string& out);

}  // namespace gpua::admission
