// Helpers shared by the policy tests: load YAML text, find a diagnostic by key path.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "policy/loader.hpp"

namespace gpua::policy::testing {

inline LoadResult load(const std::string& text, const std::string& file = "p.yaml") {
  return loadPolicySources({{file, text}});
}

// The first diagnostic with exactly this key path, or nullptr.
inline const Diagnostic* errorAt(const LoadResult& r, const std::string& keyPath) {
  for (const auto& d : r.errors)
    if (d.keyPath == keyPath) return &d;
  return nullptr;
}

inline std::string allErrors(const LoadResult& r) {
  std::string out;
  for (const auto& d : r.errors) out += d.format() + "\n";
  return out;
}

// Asserts the policy was refused and the diagnostic at `keyPath` formats exactly as `expected`.
inline void expectError(const LoadResult& r, const std::string& keyPath,
                        const std::string& expected) {
  EXPECT_EQ(r.policy, nullptr);
  const Diagnostic* d = errorAt(r, keyPath);
  ASSERT_NE(d, nullptr) << "no error at " << keyPath << "; got:\n" << allErrors(r);
  EXPECT_EQ(d->format(), expected);
}

// A valid document header; `spec` is appended verbatim (indented by the caller).
inline std::string doc(const std::string& spec, const std::string& name = "test") {
  return "apiVersion: gpu-admission.io/v1\nkind: GpuPolicy\nmetadata: {name: " + name +
         "}\nspec:\n" + spec;
}

}  // namespace gpua::policy::testing
