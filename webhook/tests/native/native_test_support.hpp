// What the native compiler's tests share: a policy from YAML text, failing the test (and giving
// an empty policy) when it does not load.
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "policy/loader.hpp"

namespace gpua::native::testing {

inline policy::PolicySet load(const std::string& yaml) {
  const auto r = policy::loadPolicySources({{"test.yaml", yaml}});
  EXPECT_TRUE(r.ok()) << (r.errors.empty() ? "" : r.errors.front().format());
  return r.ok() ? *r.policy : policy::PolicySet{};
}

}  // namespace gpua::native::testing
