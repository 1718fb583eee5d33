#include "engine/classify/classify.hpp"

#include <algorithm>

#include "engine/core/json_util.hpp"
#include "engine/core/text.hpp"
#include "engine/pod/image_match.hpp"
#include "engine/pod/quantity.hpp"

namespace gpua::engine {

namespace {

constexpr std::string_view kDefaultScheduler = "default-scheduler";

std::string_view schedulerOf(const PodView& pod) {
  const std::string_view s = pod.specString("schedulerName");
  return s.empty() ? kDefaultScheduler : s;
}

bool ownerKindMatches(const PodView& pod, const std::vector<std::string>& kinds) {
  const rapidjson::Value* owners = json::arrayMember(pod.metadata, "ownerReferences");
  if (owners == nullptr) return false;
  for (const auto& owner : owners->GetArray()) {
    const std::string_view kind = json::stringMember(&owner, "kind");
    for (const auto& k : kinds)
      if (k == kind) return true;
  }
  return false;
}

bool keyMatches(std::string_view key, std::string_view pattern) {
  if (!pattern.empty() && pattern.back() == '*')
    return key.starts_with(pattern.substr(0, pattern.size() - 1));
  return key == pattern;
}

// A quantity of zero asks for nothing ("nvidia.com/gpu: 0" is how charts switch GPUs off), so
// it does not make a resource rule hold. A malformed quantity still does: the class's own
// validation then names it.
bool isZeroQuantity(const rapidjson::Value& v) {
  const auto units = parseWholeQuantity(v);
  return units && *units == 0;
}

bool mapHasResource(const rapidjson::Value* map, std::string_view pattern) {
  if (map == nullptr) return false;
  for (auto it = map->MemberBegin(); it != map->MemberEnd(); ++it)
    if (keyMatches(json::view(it->name), pattern) && !isZeroQuantity(it->value)) return true;
  return false;
}

bool resourceMatches(const PodGpu& gpu, const std::vector<std::string>& patterns) {
  for (const auto& pattern : patterns)
    for (const auto& c : gpu.containers)
      if (mapHasResource(c.requests, pattern) || mapHasResource(c.limits, pattern)) return true;
  return false;
}

template <typename Lookup>
bool allPairs(const std::map<std::string, std::string>& wanted, Lookup lookup) {
  for (const auto& [k, v] : wanted) {
    bool found = false;
    if (lookup(k, &found) != v || !found) return false;
  }
  return true;
}

template <typename Lookup>
bool allKeys(const std::vector<std::string>& keys, Lookup lookup) {
  for (const auto& k : keys) {
    bool found = false;
    lookup(k, &found);
    if (!found) return false;
  }
  return true;
}

// Some claim of the pod names one of `wanted` (resolved claims only: without spec.dra, or for an
// unresolved claim, nothing is known to match).
bool deviceClassMatches(const PodGpu& gpu, const std::vector<std::string>& wanted) {
  for (const auto& c : gpu.claims.deviceClasses)
    if (std::find(wanted.begin(), wanted.end(), c) != wanted.end()) return true;
  return false;
}

bool matcherHolds(const policy::Matcher& m, const MatchInput& in, std::size_t* anyIndex) {
  bool anyOk = m.any.empty();
  for (std::size_t i = 0; i < m.any.size() && !anyOk; ++i)
    if (matchRule(m.any[i], in)) {
      anyOk = true;
      *anyIndex = i;
    }
  if (!anyOk) return false;
  for (const auto& rule : m.all)
    if (!matchRule(rule, in)) return false;
  return true;
}

}  // namespace

bool matchRule(const policy::MatchRule& rule, const MatchInput& in) {
  const PodView& pod = in.pod;
  auto label = [&](std::string_view k, bool* f) { return pod.label(k, f); };
  auto annotation = [&](std::string_view k, bool* f) { return pod.annotation(k, f); };
  if (!allPairs(rule.labels, label) || !allKeys(rule.labelKeys, label)) return false;
  if (!allPairs(rule.annotations, annotation) || !allKeys(rule.annotationKeys, annotation))
    return false;
  if (rule.namespaces && !rule.namespaces->matches(in.namespaceName, in.namespaceLabels))
    return false;
  if (!rule.ownerKinds.empty() && !ownerKindMatches(pod, rule.ownerKinds)) return false;
  if (!rule.schedulerNames.empty()) {
    bool found = false;
    for (const auto& s : rule.schedulerNames)
      if (s == schedulerOf(pod)) found = true;
    if (!found) return false;
  }
  if (!rule.resources.empty() && !resourceMatches(in.gpu, rule.resources)) return false;
  if (!rule.images.empty() && !anyImageMatches(pod, rule.images)) return false;
  if (!rule.deviceClasses.empty() && !deviceClassMatches(in.gpu, rule.deviceClasses)) return false;
  return true;
}

std::string describeRule(const policy::MatchRule& rule, const MatchInput& in) {
  std::vector<std::string> parts;
  for (const auto& [k, v] : rule.labels) parts.push_back("label " + k + "=" + v);
  for (const auto& k : rule.labelKeys) parts.push_back("label " + k);
  for (const auto& [k, v] : rule.annotations) parts.push_back("annotation " + k + "=" + v);
  for (const auto& k : rule.annotationKeys) parts.push_back("annotation " + k);
  if (rule.namespaces) parts.push_back("namespace " + text::oneLine(in.namespaceName, 63));
  if (!rule.ownerKinds.empty())
    parts.push_back("owner kind " + text::join(rule.ownerKinds, " or "));
  if (!rule.schedulerNames.empty())
    parts.push_back("scheduler " + text::oneLine(schedulerOf(in.pod), 63));
  if (!rule.resources.empty()) parts.push_back("resource " + text::join(rule.resources, " or "));
  if (!rule.images.empty()) parts.push_back("image " + text::join(rule.images, " or "));
  if (!rule.deviceClasses.empty())
    parts.push_back("device class " + text::join(rule.deviceClasses, " or "));
  return text::join(parts, " and ");
}

Classification classify(const MatchInput& in, const policy::PolicySet& policy) {
  Classification out;
  for (const auto& cls : policy.classes) {
    std::size_t anyIndex = 0;
    if (!matcherHolds(cls.match, in, &anyIndex)) continue;
    out.cls = &cls;
    std::vector<std::string> parts;
    if (!cls.match.any.empty()) parts.push_back(describeRule(cls.match.any[anyIndex], in));
    for (const auto& rule : cls.match.all) parts.push_back(describeRule(rule, in));
    out.rule = text::join(parts, " and ");
    out.reason = out.rule + " (class " + cls.name;
    if (!cls.match.any.empty()) out.reason += ", match rule " + std::to_string(anyIndex + 1);
    if (!cls.match.all.empty())
      out.reason += cls.match.any.empty() ? ", all-of rules" : " + all-of";
    out.reason += ")";
    return out;
  }
  return out;
}

const policy::SkipRule* findSkipRule(const MatchInput& in, const policy::PolicySet& policy) {
  for (const auto& rule : policy.skip)
    if (!rule.match.empty() && matchRule(rule.match, in)) return &rule;
  return nullptr;
}

}  // namespace gpua::engine
