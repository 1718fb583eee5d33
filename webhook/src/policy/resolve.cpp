#include "policy/resolve.hpp"

#include <algorithm>
#include <set>

#include "policy/builtin_workload_kinds.hpp"
#include "policy/edit_distance.hpp"
#include "policy/gpu_models.hpp"
#include "policy/parse.hpp"
#include "policy/resolve_placement_and_tiers.hpp"

namespace gpua::policy {

namespace {

const char* sharingName(Sharing s) {
  switch (s) {
    case Sharing::Exclusive:
      return "exclusive";
    case Sharing::Mig:
      return "mig";
    case Sharing::TimeSlicing:
      return "time-slicing";
    case Sharing::Mps:
      return "mps";
  }
  return "?";
}

bool isSliced(Sharing s) {
  return s == Sharing::TimeSlicing || s == Sharing::Mps;
}

// Reports the second and later uses of a name; `what` is "pool", "class"...
template <typename T, typename NameOf>
void checkDuplicates(const std::vector<T>& items, const std::vector<SourceLoc>& where,
                     const char* what, NameOf nameOf, Diagnostics& errors) {
  std::map<std::string, std::size_t> first;
  for (std::size_t i = 0; i < items.size(); ++i) {
    auto [it, inserted] = first.emplace(nameOf(items[i]), i);
    if (!inserted)
      report(errors, where[i], std::string("duplicate ") + what + " '" + it->first + "'",
             "first defined at " + where[it->second].where() + "; names must be unique");
  }
}

void checkAllDuplicates(const Draft& d, Diagnostics& errors) {
  auto byName = [](const auto& x) { return x.name; };
  std::vector<SourceLoc> poolAt, classAt, quotaAt;
  for (const auto& o : d.pools) poolAt.push_back(o.name);
  for (const auto& o : d.classes) classAt.push_back(o.name);
  for (const auto& o : d.quotas) quotaAt.push_back(o.name);
  checkDuplicates(d.set.pools, poolAt, "pool", byName, errors);
  checkDuplicates(d.set.classes, classAt, "class", byName, errors);
  checkDuplicates(d.set.quotas, quotaAt, "quota", byName, errors);
  checkDuplicates(d.set.skip, d.skip, "skip rule", byName, errors);
  checkDuplicates(d.set.dra.deviceClasses, d.draDeviceClasses, "DRA device class", byName, errors);
  checkDuplicates(
      d.set.templateKinds, d.templates, "template kind",
      [](const TemplateKind& t) { return t.apiGroup.empty() ? t.kind : t.kind + "." + t.apiGroup; },
      errors);
}

std::vector<std::string> classNames(const PolicySet& set) {
  std::vector<std::string> names;
  for (const auto& c : set.classes) names.push_back(c.name);
  return names;
}

// The class's pools, or empty after reporting a missing one.
std::vector<const Pool*> classPools(const PolicySet& set, const std::set<std::string>& brokenPools,
                                    const WorkloadClass& c, const ClassOrigin& o,
                                    Diagnostics& errors) {
  std::vector<std::string> poolNames;
  for (const auto& p : set.pools) poolNames.push_back(p.name);
  std::vector<const Pool*> pools;
  bool complete = true;
  for (std::size_t i = 0; i < c.pools.size(); ++i) {
    const Pool* p = set.findPool(c.pools[i]);
    // A pool with its own errors would only add follow-on noise here.
    if (p && brokenPools.contains(p->name)) complete = false;
    if (!p) {
      report(errors, o.pools[i], "unknown pool '" + c.pools[i] + "'",
             poolNames.empty() ? "no pools are defined in spec.pools"
                               : suggestion(c.pools[i], poolNames));
      complete = false;
    }
    pools.push_back(p);
  }
  return complete ? pools : std::vector<const Pool*>{};
}

void resolveMig(WorkloadClass& c, const ClassOrigin& o, const std::vector<const Pool*>& pools,
                Diagnostics& errors) {
  const std::string& profile = *c.gpus.migProfile;
  int computeSlices = 0;
  bool ok = true;
  for (std::size_t i = 0; i < pools.size(); ++i) {
    const Pool& p = *pools[i];
    const GpuModel* model = findGpuModel(p.gpu);
    const bool offers =
        p.sharing == Sharing::Mig &&
        std::find(p.migProfiles.begin(), p.migProfiles.end(), profile) != p.migProfiles.end();
    if (!offers) {
      report(errors, o.pools[i],
             "pool '" + p.name + "' (" + sharingName(p.sharing) + ") does not offer MIG profile " +
                 profile,
             "a class with gpus.migProfile needs MIG pools whose migProfiles include " + profile);
      ok = false;
      continue;
    }
    if (!model) continue;  // already reported on the pool
    if (computeSlices != 0 && computeSlices != model->computeSlices) {
      report(errors, o.pools[i],
             "pool '" + p.name + "' has " + std::to_string(model->computeSlices) +
                 " compute slices per GPU, other pools of the class have " +
                 std::to_string(computeSlices),
             "GPU-equivalents of " + profile + " would differ; split the class");
      ok = false;
    }
    computeSlices = model->computeSlices;
  }
  if (!ok || computeSlices == 0) return;
  c.resolvedResource = "nvidia.com/mig-" + profile;
  c.gpuEquivalentPerUnit = static_cast<double>(*migProfileSlices(profile)) / computeSlices;
  c.sharedResource = false;
}

void resolveWhole(WorkloadClass& c, const ClassOrigin& o, const std::vector<const Pool*>& pools,
                  Diagnostics& errors) {
  const Pool& first = *pools.front();
  bool ok = true;
  for (std::size_t i = 0; i < pools.size(); ++i) {
    const Pool& p = *pools[i];
    if (p.sharing == Sharing::Mig) {
      const GpuModel* model = findGpuModel(p.gpu);
      std::string profiles;
      for (const auto& m : p.migProfiles) profiles += (profiles.empty() ? "" : ", ") + m;
      report(errors, o.pools[i],
             "pool '" + p.name + "' is a MIG pool but the class sets no gpus.migProfile",
             "set gpus.migProfile to one of: " + profiles +
                 (model ? "" : " (the pool's GPU model is unknown)"));
      ok = false;
    } else if (isSliced(p.sharing) != isSliced(first.sharing)) {
      report(errors, o.pools[i],
             "class mixes " + std::string(sharingName(first.sharing)) + " pool '" + first.name +
                 "' with " + sharingName(p.sharing) + " pool '" + p.name + "'",
             "a whole GPU and a time-slice are different resources; split it into two classes");
      ok = false;
    } else if (p.resource != first.resource || p.replicas != first.replicas) {
      report(errors, o.pools[i],
             "pool '" + p.name + "' (" + p.resource + ", replicas " + std::to_string(p.replicas) +
                 ") differs from pool '" + first.name + "' (" + first.resource + ", replicas " +
                 std::to_string(first.replicas) + ")",
             "pools of one class must advertise the same resource with the same replicas");
      ok = false;
    }
  }
  if (!ok) return;
  c.resolvedResource = first.resource;
  c.sharedResource = isSliced(first.sharing);
  c.gpuEquivalentPerUnit = 1.0 / static_cast<double>(c.sharedResource ? first.replicas : 1);
}

void resolveClasses(Draft& d, Diagnostics& errors) {
  std::set<std::string> brokenPools;
  for (std::size_t i = 0; i < d.set.pools.size(); ++i)
    if (d.pools[i].broken) brokenPools.insert(d.set.pools[i].name);
  for (std::size_t i = 0; i < d.set.classes.size(); ++i) {
    WorkloadClass& c = d.set.classes[i];
    const ClassOrigin& o = d.classes[i];
    auto pools = classPools(d.set, brokenPools, c, o, errors);
    if (c.gpus.request == GpuRequest::Forbidden || pools.empty()) continue;
    if (c.gpus.migProfile)
      resolveMig(c, o, pools, errors);
    else
      resolveWhole(c, o, pools, errors);
  }
}

void resolveUnclassified(Draft& d, Diagnostics& errors) {
  auto& u = d.set.unclassifiedGpuPods;
  if (u.action != UnclassifiedGpuPods::Action::AssignClass) return;
  for (std::size_t i = 0; i < d.set.classes.size(); ++i) {
    if (d.set.classes[i].name != u.className) continue;
    u.classIndex = i;
    if (d.set.classes[i].gpus.request == GpuRequest::Forbidden)
      report(errors, d.unclassifiedGpuPods,
             "class '" + u.className + "' forbids GPUs, so it cannot take unclassified GPU pods",
             "name a class with pools, or use deny or allow");
    return;
  }
  auto names = classNames(d.set);
  names.insert(names.begin(), {"deny", "allow"});
  report(errors, d.unclassifiedGpuPods, "unknown class '" + u.className + "'",
         suggestion(u.className, names));
}

void resolveQuotas(const Draft& d, Diagnostics& errors) {
  const auto names = classNames(d.set);
  for (std::size_t i = 0; i < d.set.quotas.size(); ++i)
    for (const auto& [cls, at] : d.quotas[i].perClass)
      if (!d.set.findClass(cls))
        report(errors, at, "unknown class '" + cls + "'",
               names.empty() ? "no classes are defined in spec.classes" : suggestion(cls, names));
}

// A class's gpus.deviceClasses name device classes of spec.dra.deviceClasses: a class that is not
// counted as GPUs cannot be a class's GPU source.
void resolveClassDeviceClasses(const Draft& d, Diagnostics& errors) {
  std::vector<std::string> known;
  for (const auto& dc : d.set.dra.deviceClasses) known.push_back(dc.name);
  for (std::size_t i = 0; i < d.set.classes.size(); ++i) {
    const auto& names = d.set.classes[i].gpus.deviceClasses;
    for (std::size_t j = 0; j < names.size() && j < d.classes[i].deviceClasses.size(); ++j) {
      if (d.set.dra.find(names[j])) continue;
      report(errors, d.classes[i].deviceClasses[j],
             "'" + names[j] + "' is not a device class of spec.dra.deviceClasses",
             known.empty() ? "list it under spec.dra.deviceClasses with what it countsAs"
                           : suggestion(names[j], known));
    }
  }
}

// A catch-all rule (no namespaces) makes every later rule dead; that is always a mistake.
void checkRollout(const Draft& d, Diagnostics& errors) {
  for (std::size_t i = 0; i < d.set.rollout.size(); ++i) {
    if (d.set.rollout[i].namespaces) continue;
    for (std::size_t j = i + 1; j < d.set.rollout.size(); ++j)
      report(errors, d.rollout[j], "unreachable rollout rule",
             "the rule at " + d.rollout[i].where() +
                 " matches every namespace and comes first; move the catch-all last");
    return;
  }
}

}  // namespace

namespace {

// "apps/Deployment" for built-in and template kinds alike ("PodTemplate" for the core group).
std::string kindName(std::string_view group, std::string_view kind) {
  return group.empty() ? std::string(kind) : std::string(group) + "/" + std::string(kind);
}

// spec.mutateTemplates: each entry names one built-in workload kind or one of spec.templates, by
// "group/Kind" or, when only one kind has the name, by "Kind".
void resolveMutatedTemplates(Draft& d, Diagnostics& errors) {
  std::vector<KindRef> known;
  for (const auto& k : kBuiltinWorkloadKinds)
    known.push_back({std::string(k.group), std::string(k.kind)});
  for (const auto& t : d.set.templateKinds) known.push_back({t.apiGroup, t.kind});
  std::vector<std::string> names;
  for (const auto& k : known) names.push_back(kindName(k.group, k.kind));
  for (const auto& [written, at] : d.mutateTemplates) {
    std::vector<const KindRef*> matches;
    for (const auto& k : known)
      if (kindName(k.group, k.kind) == written ||
          (written.find('/') == std::string::npos && k.kind == written))
        matches.push_back(&k);
    if (matches.size() == 1) {
      d.set.mutatedTemplateKinds.push_back(*matches.front());
      continue;
    }
    if (matches.empty()) {
      const std::string near = nearest(written, names);
      report(errors, at, "'" + written + "' is not a workload kind whose templates are judged",
             near.empty() ? "built-in workload kinds and the kinds of spec.templates"
                          : "did you mean '" + near + "'?");
      continue;
    }
    report(errors, at, "'" + written + "' names several kinds",
           "write it with its API group, e.g. '" + kindName(matches[0]->group, matches[0]->kind) +
               "'");
  }
}

}  // namespace

void resolveDraft(Draft& draft, Diagnostics& errors) {
  checkAllDuplicates(draft, errors);
  resolveClasses(draft, errors);
  resolveClassEffects(draft);
  resolveClassContainers(draft, errors);
  resolveUnclassified(draft, errors);
  resolveMutatedTemplates(draft, errors);
  resolveQuotas(draft, errors);
  resolveClassDeviceClasses(draft, errors);
  checkRollout(draft, errors);
  resolvePlacementAndTiers(draft, errors);
}

}  // namespace gpua::policy
