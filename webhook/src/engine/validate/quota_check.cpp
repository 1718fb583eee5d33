#include "engine/validate/quota_check.hpp"
#include "policy/rule_ids.hpp"

#include <cmath>
#include <optional>

#include "engine/classify/class_hints.hpp"
#include "engine/classify/gpu_usage.hpp"
#include "engine/core/text.hpp"

namespace gpua::engine {

namespace rules = policy::rules;

namespace {

constexpr double kEpsilon = 1e-9;

const char* operatorWord(kube::SelectorOperator op) {
  switch (op) {
    case kube::SelectorOperator::In:
      return " in ";
    case kube::SelectorOperator::NotIn:
      return " not in ";
    case kube::SelectorOperator::Exists:
      return "";
    case kube::SelectorOperator::DoesNotExist:
      return "";
  }
  return "";
}

// "team=vision, tier in (a, b), no label x": the selector's requirements, joined.
void appendLabels(std::string& out, const kube::LabelSelector& s) {
  bool first = true;
  const auto part = [&]() -> std::string& {
    if (!first) out.append(", ");
    first = false;
    return out;
  };
  for (const auto& [k, v] : s.matchLabels) part().append(k).append("=").append(v);
  for (const auto& r : s.matchExpressions) {
    if (r.op == kube::SelectorOperator::DoesNotExist) {
      part().append("no label ").append(r.key);
    } else if (r.op == kube::SelectorOperator::Exists) {
      part().append("label ").append(r.key);
    } else {
      part().append(r.key).append(operatorWord(r.op)).append("(");
      text::appendJoined(out, r.values);
      out.append(")");
    }
  }
}

// Usage counted against the quota: `pick` of every matching namespace's usage (Shared) or of
// this one's. Summed where it is read: no usage map is built per request.
template <typename Pick>
double usedBy(const policy::Quota& q, const QuotaInput& in, Pick pick) {
  if (q.scope == policy::Quota::Scope::PerNamespace) {
    auto it = in.usage.namespaces.find(in.namespaceName);
    return it != in.usage.namespaces.end() ? pick(it->second) : 0.0;
  }
  static const kube::Labels kNoLabels;
  double total = 0;
  for (const auto& [name, u] : in.usage.namespaces) {
    const kube::Labels* labels = &kNoLabels;
    if (name == in.namespaceName) {
      labels = &in.namespaceLabels;
    } else if (auto it = in.usage.namespaceLabels.find(name);
               it != in.usage.namespaceLabels.end()) {
      labels = &it->second;
    }
    if (q.namespaces.matches(name, *labels)) total += pick(u);
  }
  return total;
}

// The value `key` has in `map`, 0 when absent.
template <typename Map>
double valueOr0(const Map& map, std::string_view key) {
  const auto it = map.find(key);
  return it == map.end() ? 0.0 : static_cast<double>(it->second);
}

// What the pod's GPUs would cost in class `c`, when c would take them as they are: within its
// per-pod and per-container limits, and at most one unit per container on shared GPUs.
std::optional<double> costIn(const policy::WorkloadClass& c, const QuotaInput& in) {
  int64_t total = 0;
  for (const auto& container : in.gpu.containers) {
    const int64_t n = container.units();
    if (c.gpus.maxPerContainer && n > *c.gpus.maxPerContainer) return std::nullopt;
    if (c.sharedResource && n > 1) return std::nullopt;
    total = addUnits(total, n);
  }
  if (c.gpus.maxPerPod && total > *c.gpus.maxPerPod) return std::nullopt;
  return static_cast<double>(total) * c.gpuEquivalentPerUnit;
}

// "label the pod gpu-admission.io/class=interactive to use class interactive, where it needs
// 0.25 GPU-equivalent, " when the namespace may use a class that is cheaper per unit, would take
// the pod as it is, fits in what is left, and a label selects (listed before the pod's class,
// since first match wins). Nothing otherwise: no odd advice to a training job.
void appendCheaperClassHint(std::string& out, const QuotaInput& in, double left) {
  const double perUnit = in.cls != nullptr ? in.cls->gpuEquivalentPerUnit : 1.0;
  for (const auto& c : in.policy.classes) {
    if (&c == in.cls) break;
    if (c.gpus.request == policy::GpuRequest::Forbidden ||
        c.gpuEquivalentPerUnit >= perUnit - kEpsilon)
      continue;
    if (c.allowedNamespaces && !c.allowedNamespaces->matches(in.namespaceName, in.namespaceLabels))
      continue;
    const auto cost = costIn(c, in);
    if (!cost || *cost > left + kEpsilon) continue;
    const std::string label = classLabel(c);
    if (label.empty()) continue;
    out.append("label the ").append(in.isTemplate ? "pod template " : "pod ").append(label);
    out.append(" to use class ").append(c.name).append(", where it needs ");
    appendGpuEquivalents(out, *cost);
    out.append(", ");
    return;
  }
}

// One budget of a quota: its GPU-equivalents, a class's share, or a resource's units.
struct Budget {
  enum class Of { Equivalents, Class, Resource } of;
  std::string_view resource;  // Of::Resource
  int64_t units = 0;          // Of::Resource: what the pod asks for
  double requested;
  double limit;
  double used;
};

// What the pod needs of the budget: "4 GPU-equivalents", "1 GPU-equivalent of class
// training", "4 nvidia.com/gpu".
void appendNeed(std::string& out, const Budget& b, const QuotaInput& in) {
  if (b.of == Budget::Of::Resource) {
    out.append(std::to_string(b.units)).append(" ").append(b.resource);
    return;
  }
  appendGpuEquivalents(out, in.gpuEquivalents);
  if (b.of == Budget::Of::Class) out.append(" of class ").append(in.cls->name);
}

// "request at most 2 nvidia.com/gpu, " in the pod's own unit, or "wait ..." when not one fits.
void appendFewerHint(std::string& out, const Budget& b, const QuotaInput& in, double left) {
  double perUnit = 1.0;
  std::string_view unit = b.resource;
  if (b.of != Budget::Of::Resource) {  // GPU-equivalents: count in the pod's resource, if one
    if (in.units.size() != 1) {
      out.append("request at most ");
      appendGpuEquivalents(out, left);
      out.append(", ");
      return;
    }
    unit = in.units.begin()->first;
    perUnit = gpuEquivalentsOf(unit, 1, in.policy);
  }
  const auto fit = perUnit > 0 ? static_cast<int64_t>((left + kEpsilon) / perUnit) : 0;
  if (fit <= 0) {
    out.append("wait for running GPU pods to finish, ");
    return;
  }
  out.append("request at most ").append(std::to_string(fit)).append(" ").append(unit).append(", ");
}

// The quota's violation, written in place into a kept Violation.
void check(const policy::Quota& q, const Budget& b, const QuotaInput& in, Violations& out) {
  if (b.used + b.requested <= b.limit + kEpsilon) return;
  const double left = b.limit - b.used;
  const bool one = std::abs(b.used - 1.0) < kEpsilon;
  Violation& v = out.next();
  v.rule.assign(rules::kQuota);
  std::string& m = v.message;
  m.append(in.subject).append(" needs ");
  appendNeed(m, b, in);
  m.append(" but quota ");
  text::appendQuoted(m, q.name);
  m.append(" (");
  if (q.scope == policy::Quota::Scope::PerNamespace) m.append("per namespace, ");
  appendNamespaces(m, q.namespaces);
  m.append(") allows ");
  text::appendNumber(m, b.limit);
  if (b.of == Budget::Of::Resource) m.append(" ").append(b.resource);
  if (b.of == Budget::Of::Class) m.append(" for class ").append(in.cls->name);
  m.append(" and ");
  text::appendNumber(m, b.used);
  m.append(one ? " is" : " are").append(" in use: ");
  appendFewerHint(m, b, in, left);
  appendCheaperClassHint(m, in, left);
  m.append("or ask the platform team to raise quota ");
  text::appendQuoted(m, q.name);
}

void checkOne(const policy::Quota& q, const QuotaInput& in, Violations& out) {
  using Of = Budget::Of;
  if (q.gpuEquivalents) {
    const double used = usedBy(q, in, [](const NamespaceUsage& u) { return u.gpuEquivalents; });
    check(q, {Of::Equivalents, {}, 0, in.gpuEquivalents, *q.gpuEquivalents, used}, in, out);
  }
  if (in.cls != nullptr) {
    if (auto it = q.perClass.find(in.cls->name); it != q.perClass.end()) {
      const std::string_view cls = in.cls->name;
      const double used =
          usedBy(q, in, [cls](const NamespaceUsage& u) { return valueOr0(u.byClass, cls); });
      check(q, {Of::Class, {}, 0, in.gpuEquivalents, it->second, used}, in, out);
    }
  }
  for (const auto& [resource, units] : in.units) {
    auto it = q.perResource.find(resource);
    if (it == q.perResource.end()) continue;
    const double used = usedBy(
        q, in, [r = resource](const NamespaceUsage& u) { return valueOr0(u.byResource, r); });
    check(q,
          {Of::Resource, resource, units, static_cast<double>(units),
           static_cast<double>(it->second), used},
          in, out);
  }
}

}  // namespace

std::string gpuEquivalentsText(double v) {
  std::string out;
  appendGpuEquivalents(out, v);
  return out;
}

void appendGpuEquivalents(std::string& out, double v) {
  text::appendNumber(out, v);
  out.append(std::abs(v - 1.0) < kEpsilon ? " GPU-equivalent" : " GPU-equivalents");
}

std::string describeNamespaces(const policy::NamespaceSelector& selector) {
  std::string out;
  appendNamespaces(out, selector);
  return out;
}

void appendNamespaces(std::string& out, const policy::NamespaceSelector& selector) {
  const bool labels = !selector.labels.empty();
  if (selector.names.empty()) {
    if (!labels) {
      out.append("all namespaces");
      return;
    }
    out.append("namespaces with ");
    appendLabels(out, selector.labels);
    return;
  }
  out.append(selector.names.size() == 1 ? "namespace " : "namespaces ");
  text::appendJoined(out, selector.names);
  if (!labels) return;
  out.append(" with ");
  appendLabels(out, selector.labels);
}

std::vector<std::string> quotasCovering(const policy::PolicySet& policy,
                                        std::string_view namespaceName,
                                        const kube::Labels& namespaceLabels) {
  std::vector<std::string> names;
  for (const auto& q : policy.quotas)
    if (q.namespaces.matches(namespaceName, namespaceLabels)) names.push_back(q.name);
  return names;
}

bool checkQuotas(const QuotaInput& in, Violations& violations, TextList& warnings) {
  if (in.gpuEquivalents <= 0 && in.units.empty()) return false;
  for (const auto& q : in.policy.quotas) {
    if (!q.namespaces.matches(in.namespaceName, in.namespaceLabels)) continue;
    if (in.usage.available) {
      checkOne(q, in, violations);
      continue;
    }
    const std::string reason = in.usage.unavailableReason.empty()
                                   ? std::string("GPU usage is not known yet")
                                   : text::oneLine(in.usage.unavailableReason, 160);
    if (in.policy.quotaUnavailable == policy::QuotaUnavailable::FailClosed) {
      violations.push_back({std::string(kQuotaUnavailableRule),
                            std::string(in.subject) + " needs " +
                                gpuEquivalentsText(in.gpuEquivalents) + " but GPU quota " +
                                text::quoted(q.name) + " could not be checked (" + reason +
                                "): retry in a minute, and tell the platform team if it persists"});
    } else {
      warnings.push_back("GPU quota not checked: " + reason);
    }
    return true;  // one notice covers every quota
  }
  return false;
}

}  // namespace gpua::engine
