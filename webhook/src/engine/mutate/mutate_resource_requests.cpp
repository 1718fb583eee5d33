// The class's container defaults (containers.defaultRequestsPerGpu, defaultRequests,
// limitsFromRequests): a container that sets neither a request nor a limit of a resource gets
// the default request (per GPU x its GPUs in a GPU container, else the fixed one), and one
// without a limit of a copied resource gets its request as the limit, in the unit the policy
// (or the pod) wrote. Idempotent: what is written exists after the first pass. A missing parent
// (resources, requests, limits) is added whole (the apiserver's patcher cannot add into it).
#include "engine/core/json_util.hpp"
#include "engine/core/text.hpp"
#include "engine/mutate/mutation.hpp"
#include "engine/pod/container_resources.hpp"

namespace gpua::engine {

namespace {

// {"cpu":"8","memory":"64Gi"}: one map of resources -> quantities, as a JSON object.
struct ResourceMap {
  std::string json;
  void add(std::string_view resource, const std::string& value) {
    // append, not +: `"," + std::string&&` is GCC 12's false -Wrestrict at -O3 (bug 105329)
    json.append(json.empty() ? "{" : ",").append(json::quoteString(resource));
    json.append(":").append(value);
  }
  bool empty() const { return json.empty(); }
  std::string object() const { return json + "}"; }
};

// Calls `f` once for each resource the class may write into containers: its defaults' and its
// copies' names, each once, without building a list per pod.
template <typename F>
void forEachWrittenResource(const policy::ContainerRules& rules, F&& f) {
  for (const auto& [r, q] : rules.defaultRequestsPerGpu) f(std::string_view(r));
  for (const auto& [r, q] : rules.defaultRequests)
    if (!rules.defaultRequestsPerGpu.contains(r)) f(std::string_view(r));
  for (const auto& r : rules.limitsFromRequests)
    if (!rules.defaultRequestsPerGpu.contains(r) && !rules.defaultRequests.contains(r))
      f(std::string_view(r));
}

// Ops for one container's map `field` ("requests"/"limits"): key by key into an existing map,
// else the map whole (or, with no resources at all, collected by the caller).
void writeMap(const ContainerGpu& c, const rapidjson::Value* existing, std::string_view field,
              const std::vector<std::pair<std::string_view, std::string>>& adds,
              MutationOutput& out, ResourceMap& whole) {
  for (const auto& [resource, value] : adds) {
    if (existing != nullptr) {
      out.add(containerPath(c) + "/resources/" + std::string(field) + "/" +
                  escapePointerToken(resource),
              value);
    } else {
      whole.add(resource, value);
    }
  }
}

}  // namespace

void mutateResourceRequests(const MutationContext& ctx, MutationOutput& out) {
  const policy::ContainerRules& rules = ctx.cls.containers;
  if (!rules.writesDefaults()) return;
  std::vector<std::string> names;
  for (const auto& c : ctx.gpu.containers) {
    std::vector<std::pair<std::string_view, std::string>> requests, limits;
    forEachWrittenResource(rules, [&](std::string_view resource) {
      if (auto q = defaultRequest(rules, c, resource)) requests.emplace_back(resource, q->json);
      if (auto q = defaultLimit(rules, c, resource)) limits.emplace_back(resource, q->json);
    });
    if (requests.empty() && limits.empty()) continue;
    ResourceMap newRequests, newLimits;
    writeMap(c, c.requests, "requests", requests, out, newRequests);
    writeMap(c, c.limits, "limits", limits, out, newLimits);
    if (c.resources == nullptr) {
      std::string whole = "{";
      if (!newRequests.empty()) whole.append("\"requests\":").append(newRequests.object());
      if (!newLimits.empty())
        whole.append(newRequests.empty() ? "" : ",")
            .append("\"limits\":")
            .append(newLimits.object());
      out.add(containerPath(c) + "/resources", whole + "}");
    } else {
      if (!newRequests.empty())
        out.add(containerPath(c) + "/resources/requests", newRequests.object());
      if (!newLimits.empty()) out.add(containerPath(c) + "/resources/limits", newLimits.object());
    }
    names.push_back(std::string(c.name));
  }
  if (names.empty()) return;
  out.changes.push_back("container resource defaults (" +
                        text::oneLine(text::join(names, ", "), 60) + ")");
}

}  // namespace gpua::engine
