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

std::string describeLabels(const kube::LabelSelector& s) {
  std::vector<std::string> parts;
  for (const auto& [k, v] : s.matchLabels) parts.push_back(k + "=" + v);
  for (const auto& r : s.matchExpressions) {
    if (r.op == kube::SelectorOperator::DoesNotExist) {
      parts.push_back("no label " + r.key);
    } else if (r.op == kube::SelectorOperator::Exists) {
      parts.push_back("label " + r.key);
    } else {
      parts.push_back(r.key + operatorWord(r.op) + "(" + text::join(r.values) + ")");
    }
  }
  return text::join(parts);
}

// Usage counted against the quota: every matching namespace (Shared) or this one.
NamespaceUsage usedBy(const policy::Quota& q, const QuotaInput& in) {
  NamespaceUsage total;
  auto add = [&](const NamespaceUsage& u) {
    total.gpuEquivalents += u.gpuEquivalents;
    for (const auto& [k, v] : u.byClass) total.byClass[k] += v;
    for (const auto& [k, v] : u.byResource) total.byResource[k] += v;
  };
  if (q.scope == policy::Quota::Scope::PerNamespace) {
    auto it = in.usage.namespaces.find(in.namespaceName);
    if (it != in.usage.namespaces.end()) add(it->second);
    return total;
  }
  static const kube::Labels kNoLabels;
  for (const auto& [name, u] : in.usage.namespaces) {
    const kube::Labels* labels = &kNoLabels;
    if (name == in.namespaceName) {
      labels = &in.namespaceLabels;
    } else if (auto it = in.usage.namespaceLabels.find(name);
               it != in.usage.namespaceLabels.end()) {
      labels = &it->second;
    }
    if (q.namespaces.matches(name, *labels)) add(u);
  }
  return total;
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
// since first match wins). Empty otherwise: no odd advice to a training job.
std::string cheaperClassHint(const QuotaInput& in, double left) {
  const double perUnit = in.cls != nullptr ? in.cls->gpuEquivalentPerUnit : 1.0;
  for (const auto& c : in.policy.classes) {
    if (&c == in.cls) break;
    if (c.gpus.request == policy::GpuRequest::Forbidden ||
        c.gpuEquivalentPerUnit >= perUnit - kEpsilon)
      continue;
    if (c.allowedNamespaces && !c.allowedNamespaces->matches(in.namespaceName, in.namespaceLabels))
      continue;
    const std::string label = classLabel(c);
    const auto cost = costIn(c, in);
    if (label.empty() || !cost || *cost > left + kEpsilon) continue;
    return std::string("label the ") + (in.isTemplate ? "pod template " : "pod ") + label +
           " to use class " + c.name + ", where it needs " + gpuEquivalentsText(*cost) + ", ";
  }
  return {};
}

struct Budget {
  std::string need;   // "4 GPU-equivalents", "4 nvidia.com/gpu"
  std::string scope;  // "" or " for class training"
  double requested;
  double limit;
  double used;
  std::string unit;  // for the "allows" phrase: "" or " nvidia.com/gpu"
};

// "request at most 2 nvidia.com/gpu, " in the pod's own unit, or "wait ..." when not one fits.
std::string fewerHint(const Budget& b, const QuotaInput& in, double left) {
  double perUnit = 1.0;
  std::string unit = b.unit;
  if (unit.empty()) {  // a GPU-equivalents budget: count in the pod's resource when it has one
    if (in.units.size() != 1) return "request at most " + gpuEquivalentsText(left) + ", ";
    unit.assign(1, ' ').append(in.units.begin()->first);
    perUnit = gpuEquivalentsOf(in.units.begin()->first, 1, in.policy);
  }
  const auto fit = perUnit > 0 ? static_cast<int64_t>((left + kEpsilon) / perUnit) : 0;
  if (fit <= 0) return "wait for running GPU pods to finish, ";
  return "request at most " + std::to_string(fit) + unit + ", ";
}

void check(const policy::Quota& q, const Budget& b, const QuotaInput& in,
           Violations& out) {
  if (b.used + b.requested <= b.limit + kEpsilon) return;
  const double left = b.limit - b.used;
  const std::string where =
      (q.scope == policy::Quota::Scope::PerNamespace ? "per namespace, " : "") +
      describeNamespaces(q.namespaces);
  const bool one = std::abs(b.used - 1.0) < kEpsilon;
  out.push_back({rules::kQuota,
                 std::string(in.subject) + " needs " + b.need + " but quota " +
                     text::quoted(q.name) + " (" + where + ") allows " + text::number(b.limit) +
                     b.unit + b.scope + " and " + text::number(b.used) + (one ? " is" : " are") +
                     " in use: " + fewerHint(b, in, left) + cheaperClassHint(in, left) +
                     "or ask the platform team to raise quota " + text::quoted(q.name)});
}

void checkOne(const policy::Quota& q, const QuotaInput& in, Violations& out) {
  const NamespaceUsage used = usedBy(q, in);
  const std::string eq = gpuEquivalentsText(in.gpuEquivalents);
  if (q.gpuEquivalents)
    check(q, {eq, "", in.gpuEquivalents, *q.gpuEquivalents, used.gpuEquivalents, ""}, in, out);
  if (in.cls != nullptr) {
    if (auto it = q.perClass.find(in.cls->name); it != q.perClass.end()) {
      auto u = used.byClass.find(in.cls->name);
      check(q,
            {eq + " of class " + in.cls->name, " for class " + in.cls->name, in.gpuEquivalents,
             it->second, u == used.byClass.end() ? 0.0 : u->second, ""},
            in, out);
    }
  }
  for (const auto& [name, units] : in.units) {
    const std::string resource(name);  // the quota and usage maps are keyed by std::string
    auto it = q.perResource.find(resource);
    if (it == q.perResource.end()) continue;
    auto u = used.byResource.find(resource);
    check(q,
          {std::to_string(units) + " " + resource, "", static_cast<double>(units),
           static_cast<double>(it->second),
           u == used.byResource.end() ? 0.0 : static_cast<double>(u->second), " " + resource},
          in, out);
  }
}

}  // namespace

std::string gpuEquivalentsText(double v) {
  return text::number(v) + (std::abs(v - 1.0) < kEpsilon ? " GPU-equivalent" : " GPU-equivalents");
}

std::string describeNamespaces(const policy::NamespaceSelector& selector) {
  const std::string labels = describeLabels(selector.labels);
  if (selector.names.empty())
    return labels.empty() ? "all namespaces" : "namespaces with " + labels;
  std::string out =
      (selector.names.size() == 1 ? "namespace " : "namespaces ") + text::join(selector.names);
  if (!labels.empty()) out += " with " + labels;
  return out;
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
