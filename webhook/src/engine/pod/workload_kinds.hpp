// Which kinds the engine reviews: a Pod, a built-in workload kind (the table lives in
// policy/builtin_workload_kinds.hpp, where the loader reads it too) or one of the policy's
// template kinds.
#pragma once

#include <string_view>

#include "policy/builtin_workload_kinds.hpp"
#include "policy/policy_set.hpp"

namespace gpua::engine {

using policy::findBuiltinWorkloadKind;
using policy::kBuiltinWorkloadKinds;
using policy::WorkloadKind;

// A Pod, a built-in workload kind or one of the policy's template kinds.
bool isReviewableKind(std::string_view group, std::string_view kind,
                      const policy::PolicySet& policy);

}  // namespace gpua::engine
