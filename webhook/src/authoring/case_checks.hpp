// Runs one declarative case through the admission path and compares the result with its
// expectations, then re-runs the case on its own output to prove the mutation is idempotent.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "authoring/cluster_snapshots.hpp"
#include "authoring/review_roundtrip.hpp"
#include "authoring/test_case.hpp"
#include "policy/policy_set.hpp"

namespace gpua::authoring {

// One failed check: "what: expected X, got Y", optionally followed by diff lines.
struct CheckFailure {
  std::string message;
  std::vector<std::string> diff;
};

// Empty when the case passes. Never throws for a wrong expectation; a case that cannot run at
// all (unreadable usage file, object the webhook cannot review) is one failure saying why, and
// a case whose fixture files are missing (TestCase::fixtureErrors) fails with those, unreviewed.
// `files` reads the case's usage and nodes files. `more` (when set) checks the review further
// (`test --against-native`): its failures are the case's too.
using MoreChecks = std::function<std::vector<CheckFailure>(const ReviewReport&)>;
std::vector<CheckFailure> checkCase(const TestCase& c, const policy::PolicySet& policy,
                                    const SnapshotReader& files, const MoreChecks& more = {});

}  // namespace gpua::authoring
