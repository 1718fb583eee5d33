// The policy as parsed from every document, before cross-references are resolved: the
// PolicySet being built plus where each named or referenced thing was written, so checks that
// run after merging (duplicates, dangling references, MIG resolution) still point at the
// right file, line and column.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "policy/policy_set.hpp"
#include "policy/yaml_reader.hpp"

namespace gpua::policy {

struct PoolOrigin {
  SourceLoc node, name, gpu, sharing, replicas, resource;
  std::vector<SourceLoc> migProfiles;
  bool hasReplicas = false, hasResource = false, hasMigProfiles = false;
  bool broken = false;  // errors were reported inside the pool: skip checks that build on it
};

// A class's `effects` as written: each set one overrides spec.effects (resolved after merging,
// since spec.effects may sit in another file).
struct EffectOverrides {
  std::optional<EffectMode> toleration, nodePlacement, priorityClass, runtimeClass, resourceName,
      resourceRequests;
};

struct ClassOrigin {
  SourceLoc node, name, migProfile, request, priorityClassName;
  std::vector<SourceLoc> pools;
  bool requestExplicit = false;  // gpus.request was written (else defaulted from pools)
  std::vector<SourceLoc> cpuPools;
  SourceLoc placement;  // the class's placement mapping (its node when absent)
  EffectOverrides effects;
  ContainerRulesOverrides containers;  // the class's `containers` as written
  SourceLoc containersAt;              // where (the class's node when absent)
  std::optional<RuleScope> appliesTo;  // the class's appliesTo as written
  std::vector<SourceLoc> deviceClasses;  // gpus.deviceClasses entries
};

struct QuotaOrigin {
  SourceLoc name;
  std::map<std::string, SourceLoc> perClass;
};

// A setting that may be written once across all files ("exempt", "quotaUnavailable"...).
struct SettingOrigin {
  std::optional<SourceLoc> firstSetAt;
};

struct Draft {
  PolicySet set;
  bool haveName = false;
  std::vector<PoolOrigin> pools;                  // parallel to set.pools
  std::vector<ClassOrigin> classes;               // parallel to set.classes
  std::vector<QuotaOrigin> quotas;                // parallel to set.quotas
  std::vector<SourceLoc> skip;                    // name of each set.skip entry
  std::vector<SourceLoc> rollout;                 // each set.rollout entry
  std::vector<SourceLoc> templates;               // each set.templateKinds entry
  std::map<std::string, SettingOrigin> settings;  // by key path, e.g. "spec.exempt"
  SourceLoc unclassifiedGpuPods;                  // where the class name was written
  std::vector<PoolOrigin> cpuPools;               // parallel to set.cpuPools
  std::vector<SourceLoc> priorityTiers;           // name of each set.priorityTiers entry
  ContainerRulesOverrides defaultContainers;      // spec.containers, the classes' default
  SourceLoc defaultContainersAt;                  // where spec.containers is
  // spec.mutateTemplates as written ("apps/Deployment" or "Deployment"), resolved once every
  // template kind is known.
  std::vector<std::pair<std::string, SourceLoc>> mutateTemplates;
  std::vector<SourceLoc> draDeviceClasses;  // name of each set.dra.deviceClasses entry
};

}  // namespace gpua::policy
