// After merging: each class's container rules = spec.containers overlaid with the class's own
// `containers`, key by key, and the checks of rules that contradict each other once combined.
#include <algorithm>

#include "policy/parse.hpp"

namespace gpua::policy {

namespace {

template <typename T>
void overlayKey(T& into, const std::optional<T>& from) {
  if (from) into = *from;
}

void overlay(ContainerRules& c, const ContainerRulesOverrides& o) {
  overlayKey(c.requireRequests, o.requireRequests);
  overlayKey(c.requireLimits, o.requireLimits);
  overlayKey(c.qos, o.qos);
  overlayKey(c.maxPerGpu, o.maxPerGpu);
  overlayKey(c.maxLimitRequestRatio, o.maxLimitRequestRatio);
  overlayKey(c.defaultRequestsPerGpu, o.defaultRequestsPerGpu);
  overlayKey(c.requiredEnv, o.requiredEnv);
  overlayKey(c.maxPerContainer, o.maxPerContainer);
  overlayKey(c.defaultRequests, o.defaultRequests);
  overlayKey(c.limitsFromRequests, o.limitsFromRequests);
  overlayKey(c.appliesTo, o.appliesTo);
}

bool copies(const ContainerRules& c, const std::string& resource) {
  return std::find(c.limitsFromRequests.begin(), c.limitsFromRequests.end(), resource) !=
         c.limitsFromRequests.end();
}

// A default request above the per-container maximum refuses every pod it is written into.
void checkDefaultsUnderMaxima(const ContainerRules& c, const SourceLoc& at, Diagnostics& errors) {
  for (const auto& [resource, fixed] : c.defaultRequests) {
    const auto max = c.maxPerContainer.find(resource);
    if (max != c.maxPerContainer.end() && max->second.value < fixed.value)
      report(errors, at,
             "defaultRequests." + resource + " " + fixed.text + " is above maxPerContainer." +
                 resource + " " + max->second.text,
             "every container given the default would be refused; lower the default or raise "
             "the maximum");
  }
}

// Rules that no pod given the defaults could pass: a default above its maximum, or defaults
// (requests without limits) in a class that demands Guaranteed pods.
void checkConsistent(const ContainerRules& c, const SourceLoc& at, Diagnostics& errors) {
  for (const auto& [resource, perGpu] : c.defaultRequestsPerGpu) {
    const auto max = c.maxPerGpu.find(resource);
    if (max != c.maxPerGpu.end() && max->second.value < perGpu.value)
      report(errors, at,
             "defaultRequestsPerGpu." + resource + " " + perGpu.text + " is above maxPerGpu." +
                 resource + " " + max->second.text,
             "every pod given the default would be refused; lower the default or raise the "
             "maximum");
  }
  checkDefaultsUnderMaxima(c, at, errors);
  const bool copiesBoth = copies(c, "cpu") && copies(c, "memory");
  for (const auto* defaults : {&c.defaultRequestsPerGpu, &c.defaultRequests}) {
    if (c.qos != QosClass::Guaranteed || defaults->empty() || copiesBoth) continue;
    const char* key = defaults == &c.defaultRequests ? "defaultRequests" : "defaultRequestsPerGpu";
    report(errors, at, std::string("qos: Guaranteed with ") + key,
           std::string("the defaults write requests without limits, which a Guaranteed pod "
                       "cannot have; add limitsFromRequests: [cpu, memory], drop ") +
               key + ", or use qos: Burstable");
  }
}

// The pseudo-class of the allPods scope: spec.containers when its scope is allPods, the cluster
// default effects, and whether anything (those rules, a namespace rule) has that scope.
void resolveAllPodsRules(Draft& draft, Diagnostics& errors) {
  WorkloadClass& all = draft.set.allPodsRules;
  all.gpus.request = GpuRequest::Optional;
  all.appliesTo = RuleScope::AllPods;
  all.effects = draft.set.defaultEffects;
  all.containers = {};
  all.containers.appliesTo = RuleScope::AllPods;
  if (draft.defaultContainers.appliesTo == RuleScope::AllPods) {
    overlay(all.containers, draft.defaultContainers);
    checkConsistent(all.containers, draft.defaultContainersAt, errors);
  }
  bool judged = !all.containers.empty();
  for (const auto& rule : draft.set.namespaceRules)
    judged = judged || rule.appliesTo == RuleScope::AllPods;
  draft.set.allPodsJudged = judged;
}

}  // namespace

void resolveClassContainers(Draft& draft, Diagnostics& errors) {
  for (std::size_t i = 0; i < draft.set.classes.size() && i < draft.classes.size(); ++i) {
    WorkloadClass& cls = draft.set.classes[i];
    const ClassOrigin& origin = draft.classes[i];
    ContainerRules rules;
    overlay(rules, draft.defaultContainers);
    // The class's own scope is closer to it than the cluster default's.
    if (origin.appliesTo) rules.appliesTo = *origin.appliesTo;
    overlay(rules, origin.containers);
    // Rules per GPU mean nothing for a class without GPUs (its own are refused when parsed).
    if (cls.gpus.request == GpuRequest::Forbidden) {
      rules.maxPerGpu.clear();
      rules.defaultRequestsPerGpu.clear();
    }
    checkConsistent(rules, origin.containersAt, errors);
    cls.containers = std::move(rules);
  }
  resolveAllPodsRules(draft, errors);
}

}  // namespace gpua::policy
