// YAML document -> Draft. Each function reads one part of a GpuPolicy document strictly,
// reporting every problem it finds through the reader and appending what is valid to the draft.
#pragma once

#include <yaml-cpp/yaml.h>

#include "policy/draft.hpp"
#include "policy/yaml_reader.hpp"

namespace gpua::policy {

// A whole document: apiVersion, kind, metadata, spec.
void parseDocument(YamlReader& r, const YAML::Node& doc, Draft& draft);

void parsePools(YamlReader& r, const YAML::Node& node, const std::string& path, Draft& draft);
void parseClasses(YamlReader& r, const YAML::Node& node, const std::string& path, Draft& draft);
void parseSkipRules(YamlReader& r, const YAML::Node& node, const std::string& path, Draft& draft);
void parseQuotas(YamlReader& r, const YAML::Node& node, const std::string& path, Draft& draft);
void parseRollout(YamlReader& r, const YAML::Node& node, const std::string& path, Draft& draft);
void parseTemplates(YamlReader& r, const YAML::Node& node, const std::string& path, Draft& draft);

void parseCpuPools(YamlReader& r, const YAML::Node& node, const std::string& path, Draft& draft);
void parseFieldGuards(YamlReader& r, const YAML::Node& node, const std::string& path, Draft& draft);
// spec.dra: the DRA device classes that hold GPUs and how their devices count (parse_dra.cpp).
void parseDra(YamlReader& r, const YAML::Node& node, const std::string& path, Draft& draft);
void parsePriorityTiers(YamlReader& r, const YAML::Node& node, const std::string& path,
                        Draft& draft);
// The class keys beyond the GPU rules (cpuPools, placement, requireCheckpoint, containers), read
// from the class's mapping after its core keys.
void parseClassWorkloadRules(YamlReader& r, const MapReader& m, WorkloadClass& c,
                             ClassOrigin& origin);

// Shared pieces.
// A pool's matchExpressions: key, operator (In, NotIn, Exists, DoesNotExist, Gt, Lt), values.
NodeRequirements parseNodeRequirements(YamlReader& r, const YAML::Node& node,
                                       const std::string& path);
void parseTaints(YamlReader& r, const YAML::Node& node, const std::string& path, Pool& pool);
std::optional<CheckpointRule> parseCheckpointRule(YamlReader& r, const YAML::Node& node,
                                                  const std::string& path);
// spec.ruleExemptions and spec.namespaceRules (parse_images.cpp, parse_namespace_rules.cpp).
void parseRuleExemptions(YamlReader& r, const YAML::Node& node, const std::string& path,
                         Draft& draft);
void parseNamespaceRules(YamlReader& r, const YAML::Node& node, const std::string& path,
                         Draft& draft);
// spec.effects (the cluster default) and a class's effects (parse_effects.cpp): "mutate",
// "require", or a mapping per effect.
void parseDefaultEffects(YamlReader& r, const YAML::Node& node, const std::string& path,
                         Draft& draft);
EffectOverrides parseEffects(YamlReader& r, const YAML::Node& node, const std::string& path);
// After merging: each class's effects = spec.effects overlaid with the class's own.
void resolveClassEffects(Draft& draft);
// `containers` of a class and spec.containers (parse_containers.cpp), and after merging each
// class's rules = spec.containers overlaid with its own, checked (resolve_containers.cpp).
ContainerRulesOverrides parseContainerRules(YamlReader& r, const YAML::Node& node,
                                            const std::string& path);
void parseDefaultContainers(YamlReader& r, const YAML::Node& node, const std::string& path,
                            Draft& draft);
void resolveClassContainers(Draft& draft, Diagnostics& errors);
// `appliesTo`: gpuPods, placedPods or classPods (container_rules.hpp).
std::optional<RuleScope> parseRuleScope(YamlReader& r, const YAML::Node& node,
                                        const std::string& path);
// `appliesTo: gpuPods` written at `node` on a class whose GPUs are forbidden judges no pod: an
// error, whose hint ends with `hint`.
// appliesTo: allPods written in a class (or a class's containers).
void refuseAllPodsInAClass(YamlReader& r, const YAML::Node& node, const std::string& path);
void refuseGpuPodScopeWithoutGpus(YamlReader& r, const YAML::Node& node, const std::string& path,
                                  const std::string& hint);

// Shared pieces.
// A non-empty list of image patterns: exact references, or prefixes ending in '*'.
std::vector<std::string> parseImagePatterns(YamlReader& r, const YAML::Node& node,
                                            const std::string& path);
// A namespace selector: either a list of names, or {names, matchLabels, matchExpressions}.
// requiredLabels: keys (any value) or {key, values}.
std::vector<RequiredLabel> parseRequiredLabels(YamlReader& r, const YAML::Node& node,
                                               const std::string& path);
std::optional<NamespaceSelector> parseNamespaceSelector(YamlReader& r, const YAML::Node& node,
                                                        const std::string& path);
kube::LabelSelector parseLabelSelector(YamlReader& r, const MapReader& map);
// capacityCheck: deny | warn | off, and maxShareOfNodePerGpu: a factor of at least 1
// (parse_capacity.cpp).
std::optional<CapacityCheck> parseCapacityCheck(YamlReader& r, const YAML::Node& node,
                                                const std::string& path);
std::optional<double> parseShareFactor(YamlReader& r, const YAML::Node& node,
                                       const std::string& path);
// One match rule; reports an empty rule.
std::optional<MatchRule> parseMatchRule(YamlReader& r, const YAML::Node& node,
                                        const std::string& path);

}  // namespace gpua::policy
