#include "engine/core/json_util.hpp"
#include "engine/mutate/mutation.hpp"

namespace gpua::engine {

std::string containerPath(const ContainerGpu& c) {
  return std::string(c.init ? "/spec/initContainers/" : "/spec/containers/") +
         std::to_string(c.index);
}

namespace {

// Every MIG resource the pod asks for is `target`: in a template, the class's own earlier rewrite.
bool onlyMigIs(const PodGpu& gpu, std::string_view target) {
  for (const auto& c : gpu.containers)
    for (const auto& e : c.gpus)
      if (e.wantsGpu() && e.resource.starts_with("nvidia.com/mig-") && e.resource != target)
        return false;
  return true;
}

}  // namespace

std::string_view gpuRewriteTarget(const policy::WorkloadClass& cls, const PodGpu& gpu,
                                  bool isTemplate) {
  if (cls.resolvedResource.empty() || cls.resolvedResource == kWholeGpu) return {};
  // A pod that picked a MIG profile itself keeps it; the class's profile check judges it. A
  // template stored with the class's own rewrite gets nvidia.com/gpu back beside it when its
  // manifest is applied again (kubectl apply, server-side apply and GitOps merge into what is
  // stored): the author's nvidia.com/gpu is rewritten onto the target again, replacing it.
  if (gpu.requestsMig && !(isTemplate && onlyMigIs(gpu, cls.resolvedResource))) return {};
  return cls.resolvedResource;
}

namespace {

struct LimitAdd {
  std::string_view resource;
  std::string valueJson;
};

// Ops for one container; returns whether a rename / a limit default happened.
void mutateContainer(const ContainerGpu& c, std::string_view rewriteTo, MutationOutput& out,
                     bool& renamed, bool& defaulted) {
  // The path prefix of this container's resources, built the first time an op needs it (most
  // GPU containers need none: their limits are set and nothing is renamed).
  std::string basePath;
  const auto base = [&]() -> const std::string& {
    if (basePath.empty()) basePath = containerPath(c) + "/resources";
    return basePath;
  };
  std::vector<LimitAdd> limitAdds;
  std::vector<std::string> limitRemoves;
  for (const auto& e : c.gpus) {
    if (!e.wantsGpu()) continue;  // a 0 quantity is no GPU: leave it as written
    // Not a GPU count ("1.5", "abc"): the violation says so; renaming it or copying it into a
    // limit would only spread the mistake (warn and audit mode admit the pod as written).
    if (e.invalid) continue;
    const bool rename = !rewriteTo.empty() && e.resource == kWholeGpu;
    const std::string_view target = rename ? rewriteTo : e.resource;
    if (rename && e.request != nullptr) {
      out.remove(base() + "/requests/" + escapePointerToken(e.resource));
      out.add(base() + "/requests/" + escapePointerToken(target), json::serialize(*e.request));
    }
    if (rename && e.limit != nullptr) {
      limitRemoves.push_back(base() + "/limits/" + escapePointerToken(e.resource));
      limitAdds.push_back({target, json::serialize(*e.limit)});
    }
    if (e.limit == nullptr && e.request != nullptr) {
      limitAdds.push_back({target, json::serialize(*e.request)});
      defaulted = true;
    }
    renamed = renamed || rename;
  }
  for (auto& path : limitRemoves) out.remove(std::move(path));
  if (limitAdds.empty()) return;
  if (c.limits != nullptr) {
    for (auto& a : limitAdds)
      out.add(base() + "/limits/" + escapePointerToken(a.resource), std::move(a.valueJson));
    return;
  }
  std::string object = "{";
  for (const auto& a : limitAdds) {
    if (object.size() > 1) object += ',';
    object += json::quoteString(a.resource) + ":" + a.valueJson;
  }
  object += '}';
  out.add(base() + "/limits", std::move(object));
}

}  // namespace

void mutateResources(const MutationContext& ctx, MutationOutput& out) {
  bool renamed = false;
  bool defaulted = false;
  for (const auto& c : ctx.gpu.containers)
    if (!c.gpus.empty() && c.resources != nullptr)
      mutateContainer(c, ctx.rewriteTo, out, renamed, defaulted);
  if (renamed) out.changes.push_back("nvidia.com/gpu -> " + std::string(ctx.rewriteTo));
  if (defaulted) out.changes.push_back("GPU limits = requests");
}

}  // namespace gpua::engine
