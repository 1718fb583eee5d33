#include <algorithm>

#include "engine/classify/claim_resolution.hpp"
#include "engine/classify/class_hints.hpp"
#include "engine/classify/class_placement.hpp"
#include "engine/core/json_util.hpp"
#include "engine/core/text.hpp"
#include "engine/validate/quota_check.hpp"
#include "engine/validate/require_effects.hpp"
#include "engine/validate/validate.hpp"
#include "policy/rule_ids.hpp"

namespace gpua::engine {

namespace rules = policy::rules;

namespace {

// The resource name as the pod wrote it when all entries agree, else "GPUs".
std::string resourceWord(const std::vector<const GpuEntry*>& entries) {
  if (entries.empty()) return "GPUs";
  for (const auto* e : entries)
    if (e->resource != entries.front()->resource) return "GPUs";
  return std::string(entries.front()->resource);
}

std::vector<const GpuEntry*> entriesOf(const PodGpu& gpu, const ContainerGpu* only) {
  std::vector<const GpuEntry*> out;
  for (const auto& c : gpu.containers)
    if (only == nullptr || &c == only)
      for (const auto& e : c.gpus)
        if (e.units() > 0) out.push_back(&e);
  return out;
}

// " (label serving.kserve.io/inferenceservice)" or "" when the class was assigned.
std::string matchedBy(const ValidationInput& in) {
  return in.matchedBy.empty() ? std::string() : " (" + text::oneLine(in.matchedBy, 160) + ")";
}

// What the user changes to leave the class: "the label k=v", or whatever the rule tested.
std::string selectorWord(const ValidationInput& in) {
  if (in.matchedBy.empty()) return "the labels that select class " + in.cls.name;
  const std::string rule = text::oneLine(in.matchedBy, 160);
  if (rule.starts_with("label ") && rule.find(" and ") == std::string::npos) return "the " + rule;
  return "what selects class " + in.cls.name + " (" + rule + ")";
}

std::string podWord(const ValidationInput& in) {
  return in.pod.isTemplate ? "pod template" : "pod";
}

void checkNamespace(const ValidationInput& in, Violations& out) {
  if (!in.cls.allowedNamespaces ||
      in.cls.allowedNamespaces->matches(in.namespaceName, in.namespaceLabels))
    return;
  out.push_back(
      {rules::kClassNotAllowed,
       in.pod.subject + " matches GPU class " + in.cls.name + matchedBy(in) + ", which namespace " +
           text::quoted(in.namespaceName) + " may not use (class " + in.cls.name + " is for " +
           describeNamespaces(*in.cls.allowedNamespaces) + "): run it there, " + "remove " +
           selectorWord(in) + ", or ask the platform team to allow " + "this namespace"});
}

void checkRequestPresence(const ValidationInput& in, Violations& out) {
  const auto request = in.cls.gpus.request;
  if (request == policy::GpuRequest::Required && !in.gpu.hasGpu) {
    const std::string resource =
        in.cls.resolvedResource.empty() ? std::string(kWholeGpu) : in.cls.resolvedResource;
    out.push_back({rules::kMissingGpuRequest,
                   in.pod.subject + " is in GPU class " + in.cls.name + matchedBy(in) +
                       " but no container asks for a GPU: add resources.limits " + resource +
                       ": 1 to the container that needs it, or remove " + selectorWord(in) +
                       " if the " + podWord(in) + " needs no GPU"});
  }
  if (request != policy::GpuRequest::Forbidden || !in.gpu.hasGpu) return;
  // A GPU class listed before this one wins when its label is set (first match wins).
  const std::string labels =
      gpuClassLabels({in.policy, in.namespaceName, in.namespaceLabels, &in.cls},
                     [](const policy::WorkloadClass&) { return true; });
  const std::string instead =
      labels.empty() ? "ask the platform team for a GPU class"
                     : "label the " + podWord(in) + " " + labels + " to use a GPU class";
  for (const auto& c : in.gpu.containers) {
    // A container whose GPUs come only from claims is named through its claim below.
    if (!std::any_of(c.gpus.begin(), c.gpus.end(), [](const GpuEntry& e) { return e.wantsGpu(); }))
      continue;
    const auto entries = entriesOf(in.gpu, &c);
    out.push_back(
        {rules::kGpuForbidden, in.pod.subject + " " + containerLabel(c) + " asks for " +
                                   std::to_string(c.units()) + " " + resourceWord(entries) +
                                   " but class " + in.cls.name + matchedBy(in) +
                                   " does not allow GPUs: remove the GPU request, or " + instead});
    return;
  }
  const std::string claimed = describeClaimedGpus(in.gpu.claims);
  out.push_back(
      {rules::kGpuForbidden, in.pod.subject + " " +
                                 (claimed.empty() ? "claims devices (resourceClaims)" : claimed) +
                                 " but class " + in.cls.name + matchedBy(in) +
                                 " does not allow GPUs: remove the claim, or " + instead});
}

void checkMaxPerContainer(const ValidationInput& in, Violations& out) {
  if (!in.cls.gpus.maxPerContainer) return;
  const int64_t max = *in.cls.gpus.maxPerContainer;
  for (const auto& c : in.gpu.containers) {
    if (c.units() <= max) continue;
    out.push_back({rules::kMaxPerContainer,
                   in.pod.subject + " " + containerLabel(c) + " asks for " +
                       std::to_string(c.units()) + " " + resourceWord(entriesOf(in.gpu, &c)) +
                       " but class " + in.cls.name + " allows at most " + std::to_string(max) +
                       " per container: spread the work over more containers or pods, or ask " +
                       "the platform team for a larger limit"});
  }
}

void checkMaxPerPod(const ValidationInput& in, Violations& out) {
  if (!in.cls.gpus.maxPerPod) return;
  const int64_t max = *in.cls.gpus.maxPerPod;
  int64_t total = 0;
  for (const auto& [resource, units] : effectiveUnits(in.gpu, in.rewriteTo))
    total = addUnits(total, units);
  if (total <= max) return;
  // Name the container when one holds the GPUs, as developers think in containers. Several
  // are listed after the numbers and the fix, and only the first few, so that a pod with a
  // hundred containers still reads "asks for 100 ... at most 8" within the apiserver's limits.
  constexpr std::size_t kListed = 5;
  std::vector<std::string> holders;
  std::size_t holderCount = 0;
  const ContainerGpu* holder = nullptr;
  for (const auto& c : in.gpu.containers)
    if (c.units() > 0) {
      if (++holderCount <= kListed) holders.push_back(text::quoted(c.name));
      holder = &c;
    }
    // GCC 12 at -O3 reports a false -Wrestrict inside libstdc++ for "literal" + string&&
    // (GCC bug 105329); the pragma covers these statements only.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wrestrict"
  const std::string who = holderCount == 1 ? " " + containerLabel(*holder) : "";
  const std::string listed =
      holderCount == 1
          ? ""
          : " (containers " + text::join(holders) +
                (holderCount > kListed ? " and " + std::to_string(holderCount - kListed) + " more"
                                       : "") +
                ")";
#pragma GCC diagnostic pop
  // A class listed earlier that allows this many, and that a label selects (inference-large).
  const std::string bigger =
      gpuClassLabels({in.policy, in.namespaceName, in.namespaceLabels, &in.cls},
                     [&](const policy::WorkloadClass& c) {
                       return !c.gpus.maxPerPod || *c.gpus.maxPerPod >= total;
                     });
  out.push_back(
      {rules::kMaxPerPod,
       in.pod.subject + who + " asks for " + std::to_string(total) + " " +
           resourceWord(entriesOf(in.gpu, nullptr)) + " but class " + in.cls.name +
           " allows at most " + std::to_string(max) + " per pod: split the job across more pods" +
           (bigger.empty() ? std::string(" ")
                           : ", label the " + podWord(in) + " " + bigger +
                                 " for a class that allows " + std::to_string(total) + ", ") +
           "or ask the platform team for a larger limit" + listed});
}

bool isSharedResource(std::string_view resource, const ValidationInput& in) {
  if (in.cls.sharedResource && resource == in.cls.resolvedResource) return true;
  if (resource == kWholeGpu) return false;  // shared only through the class above
  for (const auto& pool : in.policy.pools)
    if (pool.resource == resource &&
        (pool.sharing == policy::Sharing::TimeSlicing || pool.sharing == policy::Sharing::Mps))
      return true;
  return false;
}

std::string sharingWord(std::string_view resource, const ValidationInput& in) {
  for (const auto* pool : in.pools)
    if (pool->resource == resource && pool->sharing == policy::Sharing::Mps) return "MPS";
  return "time-slicing";
}

void checkShared(const ValidationInput& in, Violations& out) {
  for (const auto& c : in.gpu.containers)
    for (const auto& e : c.gpus) {
      const std::string_view resource =
          !in.rewriteTo.empty() && e.resource == kWholeGpu ? in.rewriteTo : e.resource;
      if (e.units() <= 1 || !isSharedResource(resource, in)) continue;
      out.push_back({rules::kSharedGpuOverOne,
                     in.pod.subject + " " + containerLabel(c) + " asks for " +
                         std::to_string(e.units()) + " " + std::string(e.resource) + " but class " +
                         in.cls.name + " shares GPUs by " + sharingWord(resource, in) +
                         ", where more than 1 unit adds no compute or memory: request 1, or use " +
                         "a class with whole GPUs"});
    }
}

void checkMigProfiles(const ValidationInput& in, Violations& out) {
  if (in.pools.empty() || !in.gpu.requestsMig) return;
  std::vector<std::string> offered;
  for (const auto* pool : in.pools)
    if (pool->sharing == policy::Sharing::Mig)
      for (const auto& p : pool->migProfiles) offered.push_back(p);
  for (const auto& c : in.gpu.containers)
    for (const auto& e : c.gpus) {
      if (!e.resource.starts_with(kMigPrefix) || !e.wantsGpu()) continue;
      const std::string_view profile = e.resource.substr(kMigPrefix.size());
      bool found = false;
      for (const auto& p : offered) found = found || p == profile;
      if (found) continue;
      const std::string offer = offered.empty() ? "no pool of class " + in.cls.name + " has MIG"
                                                : "offered: " + text::join(offered);
      out.push_back({rules::kMigProfileUnavailable,
                     in.pod.subject + " " + containerLabel(c) + " asks for " +
                         text::oneLine(e.resource, 80) + " but no pool of class " + in.cls.name +
                         " offers MIG profile " + text::oneLine(profile, 40) + " (" + offer +
                         "): request one of the offered profiles, or " +
                         "nvidia.com/gpu to get the class's default"});
    }
}

void checkPriorityClass(const ValidationInput& in, Violations& out) {
  // By default (appliesTo: placedPods) the class's priority tiers are about the pods it places:
  // a CPU notebook of an optional-GPU class keeps whatever priority class it names.
  if (!inRuleScope(in.cls.appliesTo, in.cls, in.gpu)) return;
  const std::string_view name = in.pod.specString("priorityClassName");
  if (name.empty() || in.cls.overridePriorityClass) return;
  if (in.cls.priorityClassName && *in.cls.priorityClassName == name) return;
  if (in.policy.globalDefaultPriorityClass && *in.policy.globalDefaultPriorityClass == name) return;
  const auto& allowed = in.cls.allowedPriorityClasses;
  bool ok = allowed.empty() && !name.starts_with("system-");
  for (const auto& a : allowed) ok = ok || a == name;
  if (ok) return;
  std::vector<std::string> names;
  if (in.cls.priorityClassName) names.push_back(*in.cls.priorityClassName);
  for (const auto& a : allowed)
    if (!in.cls.priorityClassName || a != *in.cls.priorityClassName) names.push_back(a);
  const std::string allowedText =
      names.empty() ? std::string("any class not named system-*") : text::join(names);
  out.push_back(
      {rules::kPriorityClassNotAllowed,
       in.pod.subject + " names priorityClassName " + text::quoted(name) + " but class " +
           in.cls.name + " allows only " + allowedText + ": remove priorityClassName" +
           (in.cls.priorityClassName ? " (the class sets " + *in.cls.priorityClassName + ")"
                                     : std::string()) +
           " or use an allowed one"});
}

}  // namespace

void validateClass(const ValidationInput& in, Violations& out) {
  checkNamespace(in, out);
  checkRequestPresence(in, out);
  checkMaxPerContainer(in, out);
  checkMaxPerPod(in, out);
  checkClassDeviceClasses(in, out);
  checkShared(in, out);
  checkMigProfiles(in, out);
  checkPriorityClass(in, out);
  checkRequiredEffects(in, out);
  checkAllowedValues(in, out);
}

}  // namespace gpua::engine
