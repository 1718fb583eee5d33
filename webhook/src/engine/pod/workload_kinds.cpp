#include "engine/pod/workload_kinds.hpp"

namespace gpua::engine {

bool isReviewableKind(std::string_view group, std::string_view kind,
                      const policy::PolicySet& policy) {
  if (group.empty() && kind == "Pod") return true;
  if (findBuiltinWorkloadKind(group, kind) != nullptr) return true;
  for (const auto& t : policy.templateKinds)
    if (t.apiGroup == group && t.kind == kind) return true;
  return false;
}

}  // namespace gpua::engine
