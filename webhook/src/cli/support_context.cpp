#include "cli/support_context.hpp"

#include <cstdio>

#include "cli/support_args.hpp"
#include "cli/support_document.hpp"
#include "cluster/usage_file.hpp"
#include "policy/loader.hpp"

namespace gpua::cli {

std::shared_ptr<const policy::PolicySet> loadPolicies(const std::vector<std::string>& paths) {
  auto result = policy::loadPolicyPaths(paths);
  if (result.ok()) return result.policy;
  for (const auto& d : result.errors) std::fprintf(stderr, "%s\n", d.format().c_str());
  std::string joined;
  for (const auto& p : paths) joined += (joined.empty() ? "" : ", ") + p;
  throw InputError("policy " + joined + " does not load: " + std::to_string(result.errors.size()) +
                   " error(s) above (run 'gpu-admission lint' for hints)");
}

policy::Labels parseLabelList(const std::string& text) {
  policy::Labels labels;
  std::size_t start = 0;
  while (start <= text.size()) {
    auto end = text.find(',', start);
    if (end == std::string::npos) end = text.size();
    const std::string item = text.substr(start, end - start);
    if (!item.empty()) {
      const auto eq = item.find('=');
      if (eq == std::string::npos || eq == 0)
        throw UsageError("label \"" + item + "\" is not key=value");
      labels[item.substr(0, eq)] = item.substr(eq + 1);
    }
    start = end + 1;
  }
  return labels;
}

engine::UsageSnapshot emptyUsage() {
  engine::UsageSnapshot u;
  u.available = true;
  return u;
}

engine::UsageSnapshot unavailableUsage(std::string reason) {
  engine::UsageSnapshot u;
  u.available = false;
  u.unavailableReason = std::move(reason);
  return u;
}

engine::UsageSnapshot usageFromFiles(const std::vector<std::string>& paths,
                                     const policy::PolicySet& policy) {
  try {
    return cluster::usageFromFiles(paths, policy);
  } catch (const cluster::UsageFileError& e) {
    throw InputError(e.what());
  }
}

}  // namespace gpua::cli
