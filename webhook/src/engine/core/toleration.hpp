// Kubernetes' Toleration.ToleratesTaint, shared by the toleration mutation (does the pod
// already tolerate a pool taint?) and the supply summary (does a pool tolerate a node taint?).
#pragma once

#include <string_view>

#include "policy/policy_set.hpp"

namespace gpua::engine {

struct TolerationView {
  std::string_view key;  // empty with operator Exists: tolerates every taint
  std::string_view op;   // "Exists", "Equal" or empty (= Equal)
  std::string_view value;
  std::string_view effect;  // empty = every effect
};

bool toleratesTaint(const TolerationView& tol, const policy::Taint& taint);

// The toleration the engine adds for a pool taint: operator Exists when the taint has no value.
inline TolerationView tolerationFor(const policy::Taint& taint) {
  return {taint.key, taint.value.empty() ? "Exists" : "Equal", taint.value, taint.effect};
}

}  // namespace gpua::engine
