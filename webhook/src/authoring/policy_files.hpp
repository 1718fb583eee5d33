// Loading the policy an authoring command runs against. A policy that does not load is an
// input error carrying every diagnostic, so the caller decides where they are printed.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "authoring/input_error.hpp"
#include "policy/diagnostic.hpp"
#include "policy/policy_set.hpp"

namespace gpua::authoring {

// what(): "policy P does not load: N error(s) (run 'gpu-admission lint' for hints)".
class PolicyLoadError : public InputError {
 public:
  PolicyLoadError(const std::string& summary, std::vector<policy::Diagnostic> diagnostics)
      : InputError(summary), diagnostics_(std::move(diagnostics)) {}
  // file:line:col diagnostics, in file order.
  const std::vector<policy::Diagnostic>& diagnostics() const { return diagnostics_; }

 private:
  std::vector<policy::Diagnostic> diagnostics_;
};

// Loads policy files and directories. Throws PolicyLoadError.
std::shared_ptr<const policy::PolicySet> loadPolicies(const std::vector<std::string>& paths);

}  // namespace gpua::authoring
