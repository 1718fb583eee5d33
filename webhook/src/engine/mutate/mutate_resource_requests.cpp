// containers.defaultRequestsPerGpu: a container that asks for GPUs and sets neither a request
// nor a limit of cpu (or memory) gets a request of the per-GPU value times its GPUs, in the
// unit the policy wrote. Idempotent: the request exists after the first pass. A missing
// resources.requests is added whole (the apiserver's patcher cannot add into a missing parent).
#include "engine/core/json_util.hpp"
#include "engine/core/text.hpp"
#include "engine/mutate/mutation.hpp"
#include "engine/pod/container_resources.hpp"

namespace gpua::engine {

void mutateResourceRequests(const MutationContext& ctx, MutationOutput& out) {
  const policy::ContainerRules& rules = ctx.cls.containers;
  if (rules.defaultRequestsPerGpu.empty()) return;
  std::vector<std::string> names;
  for (const auto& c : ctx.gpu.containers) {
    if (c.resources == nullptr) continue;  // a GPU container always has resources
    std::string object;                    // {"cpu":"8",...} when requests is absent
    for (const auto& [resource, perGpu] : rules.defaultRequestsPerGpu) {
      const auto q = defaultRequest(rules, c, resource);
      if (!q) continue;
      const std::string value = json::quoteString(quantityText(*q, perGpu.text));
      if (c.requests != nullptr) {
        out.add(containerPath(c) + "/resources/requests/" + escapePointerToken(resource), value);
      } else {
        // append, not +: `"," + std::string&&` is GCC 12's false -Wrestrict at -O3 (bug 105329)
        object.append(object.empty() ? "{" : ",").append(json::quoteString(resource));
        object.append(":").append(value);
      }
      if (names.empty() || names.back() != c.name) names.push_back(std::string(c.name));
    }
    if (!object.empty()) out.add(containerPath(c) + "/resources/requests", object + "}");
  }
  if (names.empty()) return;
  out.changes.push_back("cpu/memory requests per GPU (" +
                        text::oneLine(text::join(names, ", "), 60) + ")");
}

}  // namespace gpua::engine
