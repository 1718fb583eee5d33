#include "authoring/policy_files.hpp"

#include "policy/loader.hpp"

namespace gpua::authoring {

std::shared_ptr<const policy::PolicySet> loadPolicies(const std::vector<std::string>& paths) {
  auto result = policy::loadPolicyPaths(paths);
  if (result.ok()) return result.policy;
  std::string summary = "policy ";
  for (std::size_t i = 0; i < paths.size(); ++i) summary.append(i ? ", " : "").append(paths[i]);
  summary.append(" does not load: ")
      .append(std::to_string(result.errors.size()))
      .append(" error(s) (run 'gpu-admission lint' for hints)");
  throw PolicyLoadError(summary, std::move(result.errors));
}

}  // namespace gpua::authoring
