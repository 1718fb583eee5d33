// GPU usage held by DRA ResourceClaims, folded into a UsageSnapshot: each claim counted once in
// its namespace (however many pods share it), in the class of the pods it is reserved for or
// owned by, as the units its devices count as under spec.dra. Claims the scheduler made for a
// pod's extended resources (KEP-5004) are skipped: the pod's extended resources count already.
// One rule for the live snapshot (inventory's ledger) and the CLI's --dra-from files.
#pragma once

#include "engine/context/usage.hpp"
#include "policy/policy_set.hpp"

namespace gpua::engine {

// Adds the claims of usage.dra to usage.namespaces. Nothing without spec.dra or objects.
void addClaimUsage(UsageSnapshot& usage, const policy::PolicySet& policy);

}  // namespace gpua::engine
