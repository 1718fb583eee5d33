// The shipped policies/ the review oracles judge with, loaded once. A policy that does not load
// stops the target: a fuzz run must never pass by judging against nothing.
#pragma once

#include <cstdio>
#include <cstdlib>

#include "policy/loader.hpp"

namespace gpua::fuzz {

inline const policy::PolicySet& shippedPolicy() {
  static const auto policy = [] {
    auto loaded = policy::loadPolicyPaths({GPUA_POLICIES_DIR});
    if (!loaded.ok()) {
      std::fprintf(stderr, "cannot load the shipped policies from %s\n", GPUA_POLICIES_DIR);
      std::abort();
    }
    return loaded.policy;
  }();
  return *policy;
}

}  // namespace gpua::fuzz
