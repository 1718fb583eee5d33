// `containers` (a class's, and spec.containers, the classes' default): the rules for the
// containers of a class's pods (`appliesTo`, its GPU and placed pods by default). Quantities are
// read exactly with Kubernetes' grammar (policy/quantity.hpp); each key written in a class replaces
// the default's, and the result is checked for rules that contradict each other (a default above
// its maximum...).
#include <algorithm>

#include "policy/edit_distance.hpp"
#include "policy/parse.hpp"

namespace gpua::policy {

namespace {

const std::vector<std::string>& resourceNames(bool copied = false) {
  static const std::vector<std::string> names(std::begin(kContainerResources),
                                              std::end(kContainerResources));
  static const std::vector<std::string> copiedNames(std::begin(kCopiedResources),
                                                    std::end(kCopiedResources));
  return copied ? copiedNames : names;
}

bool knownResource(YamlReader& r, const YAML::Node& node, const std::string& path,
                   const std::string& name, bool copied = false) {
  for (const auto& n : resourceNames(copied))
    if (n == name) return true;
  const std::string near = nearest(name, resourceNames(copied));
  const char* expected =
      copied ? "expected cpu, memory or ephemeral-storage" : "expected cpu or memory";
  r.error(node, path, "unknown resource '" + name + "'",
          (near.empty() ? std::string(expected) : "did you mean '" + near + "'?") +
              std::string(" (GPUs are governed by the class's gpus)"));
  return false;
}

std::vector<std::string> parseResourceList(YamlReader& r, const MapReader& m, const char* key,
                                           bool copied = false) {
  std::vector<std::string> out;
  const YAML::Node list = m.get(key);
  if (!r.expectList(list, m.path(key))) return out;
  for (std::size_t i = 0; i < list.size(); ++i) {
    const std::string p = indexPath(m.path(key), i);
    auto name = r.name(list[i], p);
    if (!name || !knownResource(r, list[i], p, *name, copied)) continue;
    if (std::find(out.begin(), out.end(), *name) != out.end())
      r.error(list[i], p, "'" + *name + "' is listed twice");
    else
      out.push_back(*name);
  }
  return out;
}

std::optional<PolicyQuantity> parseQuantityNode(YamlReader& r, const YAML::Node& node,
                                                const std::string& path) {
  if (!node.IsScalar()) {
    r.error(node, path, "expected a quantity such as 500m, 4 or 64Gi");
    return std::nullopt;
  }
  const std::string& text = node.Scalar();
  kube::QuantityError why = kube::QuantityError::Malformed;
  const auto q = kube::parseQuantity(text, &why);
  if (!q) {
    r.error(
        node, path,
        (why == kube::QuantityError::OutOfRange ? "quantity out of range '" : "malformed quantity '") +
            text + "'",
        "Kubernetes quantities look like 500m, 2, 1.5, 64Gi or 1e3");
    return std::nullopt;
  }
  if (q->negative() || q->zero()) {
    r.error(node, path, "must be greater than 0, got " + text);
    return std::nullopt;
  }
  if (!q->milliValue()) {  // the engine compares in thousandths, as the scheduler does
    r.error(node, path, "quantity out of range '" + text + "'", "at most 9e15 (about 8Pi)");
    return std::nullopt;
  }
  return PolicyQuantity{*q, text};
}

// A ratio is a factor of at least 1 in thousandths (so the engine's comparison stays exact).
bool validRatio(YamlReader& r, const YAML::Node& node, const std::string& path,
                const PolicyQuantity& q) {
  if (q.value < kube::Quantity::ofUnits(1)) {
    r.error(node, path, "a limit/request ratio must be at least 1, got " + q.text,
            "a limit is never below its request; 1 means limits equal to requests");
    return false;
  }
  if (q.value > kube::Quantity::ofUnits(1000) || q.value.nanos % 1000000 != 0) {
    r.error(
        node, path,
        "a limit/request ratio is a number from 1 to 1000 with at most 3 decimals, got " + q.text);
    return false;
  }
  return true;
}

std::map<std::string, PolicyQuantity> parseQuantityMap(YamlReader& r, const MapReader& m,
                                                       const char* key, bool ratio) {
  std::map<std::string, PolicyQuantity> out;
  const YAML::Node map = m.get(key);
  if (!r.expectMap(map, m.path(key))) return out;
  for (auto it = map.begin(); it != map.end(); ++it) {
    const std::string name = it->first.IsScalar() ? it->first.Scalar() : std::string();
    const std::string p = m.path(key) + "." + name;
    if (!knownResource(r, it->first, p, name)) continue;
    auto q = parseQuantityNode(r, it->second, p);
    if (!q || (ratio && !validRatio(r, it->second, p, *q))) continue;
    out[name] = std::move(*q);
  }
  return out;
}

bool validEnvName(const std::string& name) {
  for (char c : name)
    if (c == '=' || static_cast<unsigned char>(c) <= 0x20 || c == 0x7F) return false;
  return true;
}

std::vector<RequiredEnv> parseRequiredEnv(YamlReader& r, const MapReader& m) {
  std::vector<RequiredEnv> out;
  const YAML::Node list = m.get("requiredEnv");
  if (!r.expectList(list, m.path("requiredEnv"))) return out;
  for (std::size_t i = 0; i < list.size(); ++i) {
    MapReader e(r, list[i], indexPath(m.path("requiredEnv"), i), {"name", "value"});
    if (!e.valid() || !e.require("name")) continue;
    auto name = r.name(e.get("name"), e.path("name"));
    RequiredEnv env;
    if (e.has("value")) env.value = r.string(e.get("value"), e.path("value"));
    if (!name || (e.has("value") && !env.value)) continue;
    if (!validEnvName(*name)) {
      r.error(e.get("name"), e.path("name"), "invalid environment variable name '" + *name + "'",
              "a name has no '=', spaces or control characters, e.g. NVIDIA_DRIVER_CAPABILITIES");
      continue;
    }
    bool duplicate = false;
    for (const auto& seen : out) duplicate = duplicate || seen.name == *name;
    if (duplicate) {
      r.error(e.get("name"), e.path("name"), "'" + *name + "' is listed twice");
      continue;
    }
    env.name = *name;
    out.push_back(std::move(env));
  }
  return out;
}

}  // namespace

std::optional<RuleScope> parseRuleScope(YamlReader& r, const YAML::Node& node,
                                        const std::string& path) {
  return r.enumeration<RuleScope>(node, path,
                                  {{"gpuPods", RuleScope::GpuPods},
                                   {"placedPods", RuleScope::PlacedPods},
                                   {"classPods", RuleScope::ClassPods},
                                   {"allPods", RuleScope::AllPods}});
}

void refuseAllPodsInAClass(YamlReader& r, const YAML::Node& node, const std::string& path) {
  r.error(node, path,
          "appliesTo: allPods judges pods no class takes, which a class's rules never see",
          "use classPods for every pod of this class, or write the rule in spec.containers or "
          "spec.namespaceRules with appliesTo: allPods");
}

void refuseGpuPodScopeWithoutGpus(YamlReader& r, const YAML::Node& node, const std::string& path,
                                  const std::string& hint) {
  r.error(node, path, "appliesTo: gpuPods judges no pod of a class whose gpus.request is forbidden",
          "remove appliesTo (the class's pods are judged)" + hint);
}

ContainerRulesOverrides parseContainerRules(YamlReader& r, const YAML::Node& node,
                                            const std::string& path) {
  ContainerRulesOverrides c;
  MapReader m(r, node, path,
              {"requireRequests", "requireLimits", "qos", "maxPerGpu", "maxLimitRequestRatio",
               "defaultRequestsPerGpu", "requiredEnv", "appliesTo", "maxPerContainer",
               "defaultRequests", "limitsFromRequests"});
  if (!m.valid()) return c;
  if (m.has("requireRequests")) c.requireRequests = parseResourceList(r, m, "requireRequests");
  if (m.has("requireLimits")) c.requireLimits = parseResourceList(r, m, "requireLimits");
  if (m.has("qos"))
    c.qos = r.enumeration<QosClass>(m.get("qos"), m.path("qos"),
                                    {{"Guaranteed", QosClass::Guaranteed},
                                     {"Burstable", QosClass::Burstable},
                                     {"BestEffort", QosClass::BestEffort}});
  if (m.has("maxPerGpu")) c.maxPerGpu = parseQuantityMap(r, m, "maxPerGpu", false);
  if (m.has("maxLimitRequestRatio"))
    c.maxLimitRequestRatio = parseQuantityMap(r, m, "maxLimitRequestRatio", true);
  if (m.has("defaultRequestsPerGpu"))
    c.defaultRequestsPerGpu = parseQuantityMap(r, m, "defaultRequestsPerGpu", false);
  if (m.has("requiredEnv")) c.requiredEnv = parseRequiredEnv(r, m);
  if (m.has("maxPerContainer"))
    c.maxPerContainer = parseQuantityMap(r, m, "maxPerContainer", false);
  if (m.has("defaultRequests"))
    c.defaultRequests = parseQuantityMap(r, m, "defaultRequests", false);
  if (m.has("limitsFromRequests"))
    c.limitsFromRequests = parseResourceList(r, m, "limitsFromRequests", true);
  if (m.has("appliesTo")) c.appliesTo = parseRuleScope(r, m.get("appliesTo"), m.path("appliesTo"));
  return c;
}

void parseDefaultContainers(YamlReader& r, const YAML::Node& node, const std::string& path,
                            Draft& draft) {
  draft.defaultContainers = parseContainerRules(r, node, path);
  draft.defaultContainersAt = r.loc(node, path);
}

}  // namespace gpua::policy
