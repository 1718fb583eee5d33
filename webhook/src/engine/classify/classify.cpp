#include "engine/classify/classify.hpp"

#include <charconv>

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

void appendRuleDescription(std::string& out, const policy::MatchRule& rule, const MatchInput& in) {
  const std::size_t start = out.size();
  // Each part opens with " and " unless it is the first of this description.
  const auto part = [&](std::string_view what) -> std::string& {
    if (out.size() > start) out += " and ";
    return out.append(what);
  };
  for (const auto& [k, v] : rule.labels) part("label ").append(k).append(1, '=').append(v);
  for (const auto& k : rule.labelKeys) part("label ").append(k);
  for (const auto& [k, v] : rule.annotations)
    part("annotation ").append(k).append(1, '=').append(v);
  for (const auto& k : rule.annotationKeys) part("annotation ").append(k);
  if (rule.namespaces) text::appendOneLine(part("namespace "), in.namespaceName, 63);
  if (!rule.ownerKinds.empty()) text::appendJoined(part("owner kind "), rule.ownerKinds, " or ");
  if (!rule.schedulerNames.empty())
    text::appendOneLine(part("scheduler "), schedulerOf(in.pod), 63);
  if (!rule.resources.empty()) text::appendJoined(part("resource "), rule.resources, " or ");
  if (!rule.images.empty()) text::appendJoined(part("image "), rule.images, " or ");
  if (!rule.deviceClasses.empty())
    text::appendJoined(part("device class "), rule.deviceClasses, " or ");
}

std::string describeRule(const policy::MatchRule& rule, const MatchInput& in) {
  std::string out;
  appendRuleDescription(out, rule, in);
  return out;
}

const policy::WorkloadClass* classifyInto(const MatchInput& in, const policy::PolicySet& policy,
                                          std::string& reason, std::size_t& ruleBytes) {
  for (const auto& cls : policy.classes) {
    std::size_t anyIndex = 0;
    if (!matcherHolds(cls.match, in, &anyIndex)) continue;
    const std::size_t start = reason.size();
    std::size_t parts = 0;  // joined by " and ", as text::join joins them
    const auto rule = [&](const policy::MatchRule& r) {
      if (parts++ > 0) reason += " and ";
      appendRuleDescription(reason, r, in);
    };
    if (!cls.match.any.empty()) rule(cls.match.any[anyIndex]);
    for (const auto& r : cls.match.all) rule(r);
    ruleBytes = reason.size() - start;
    reason.append(" (class ").append(cls.name);
    if (!cls.match.any.empty()) {
      char digits[24];
      const auto n = std::to_chars(digits, digits + sizeof digits, anyIndex + 1).ptr - digits;
      reason.append(", match rule ").append(digits, static_cast<std::size_t>(n));
    }
    if (!cls.match.all.empty()) reason += cls.match.any.empty() ? ", all-of rules" : " + all-of";
    reason += ")";
    return &cls;
  }
  ruleBytes = 0;
  return nullptr;
}

Classification classify(const MatchInput& in, const policy::PolicySet& policy) {
  Classification out;
  std::size_t ruleBytes = 0;
  out.cls = classifyInto(in, policy, out.reason, ruleBytes);
  out.rule = out.reason.substr(0, ruleBytes);
  return out;
}

const policy::SkipRule* findSkipRule(const MatchInput& in, const policy::PolicySet& policy) {
  for (const auto& rule : policy.skip)
    if (!rule.match.empty() && matchRule(rule.match, in)) return &rule;
  return nullptr;
}

}  // namespace gpua::engine
