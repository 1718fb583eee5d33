#include "inventory/quota_render.hpp"

#include <cctype>
#include <cmath>
#include <map>
#include <set>

#include "engine/classify/classify.hpp"
#include "engine/classify/gpu_usage.hpp"
#include "kube/json.hpp"

namespace gpua::inventory {

namespace json = kube::json;

namespace {

using Limits = std::map<std::string, int64_t>;

// Extended resources the pools hand out (and any named by classes or quotas).
std::set<std::string> poolResources(const policy::Pool& pool) {
  if (pool.sharing != policy::Sharing::Mig) return {pool.resource};
  std::set<std::string> out;
  for (const auto& profile : pool.migProfiles) out.insert("nvidia.com/mig-" + profile);
  return out;
}

std::set<std::string> gpuResources(const policy::PolicySet& p) {
  std::set<std::string> out;
  for (const auto& pool : p.pools) out.merge(poolResources(pool));
  for (const auto& c : p.classes)
    if (!c.resolvedResource.empty()) out.insert(c.resolvedResource);
  for (const auto& q : p.quotas)
    for (const auto& [r, n] : q.perResource) out.insert(r);
  return out;
}

std::set<std::string> classResources(const policy::PolicySet& p, const policy::WorkloadClass& c) {
  std::set<std::string> out;
  if (!c.resolvedResource.empty()) out.insert(c.resolvedResource);
  for (const auto& name : c.pools)
    if (const auto* pool = p.findPool(name)) out.merge(poolResources(*pool));
  return out;
}

// The most units of `resource` a budget of `ge` GPU-equivalents allows by itself.
std::optional<int64_t> unitsWithin(double ge, const std::string& resource,
                                   const policy::PolicySet& p) {
  const double perUnit = engine::gpuEquivalentsOf(resource, 1, p);
  if (perUnit <= 0) return std::nullopt;
  return static_cast<int64_t>(std::floor(ge / perUnit + 1e-9));
}

Limits namespaceLimits(const policy::Quota& q, const policy::PolicySet& p) {
  Limits out;
  for (const auto& r : gpuResources(p)) {
    std::optional<int64_t> limit;
    if (q.gpuEquivalents) limit = unitsWithin(*q.gpuEquivalents, r, p);
    if (auto it = q.perResource.find(r); it != q.perResource.end())
      limit = limit ? std::min(*limit, it->second) : it->second;
    if (limit) out[r] = *limit;
  }
  return out;
}

std::string dnsName(std::string s) {
  for (auto& c : s) {
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '.') c = '-';
  }
  return s.substr(0, 253);
}

std::string quoted(std::string_view s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out.push_back('\\');
    out.push_back(c);
  }
  return out + "\"";
}

struct Manifest {
  std::string name, ns, quota, className, priorityClass;
  Limits hard;
};

std::string emit(const Manifest& m, const std::string& revision) {
  std::string y = "---\napiVersion: v1\nkind: ResourceQuota\nmetadata:\n";
  y += "  name: " + quoted(m.name) + "\n  namespace: " + quoted(m.ns) + "\n";
  y += "  labels:\n    app.kubernetes.io/managed-by: gpu-admission\n";
  y += "  annotations:\n    gpu-admission.io/quota: " + quoted(m.quota) + "\n";
  if (!m.className.empty()) y += "    gpu-admission.io/class: " + quoted(m.className) + "\n";
  y += "    " + std::string(engine::kPolicyRevisionAnnotation) + ": " + quoted(revision) + "\n";
  y += "spec:\n  hard:\n";
  for (const auto& [r, n] : m.hard)
    y += "    requests." + r + ": " + quoted(std::to_string(n)) + "\n";
  if (!m.priorityClass.empty())
    y += "  scopeSelector:\n    matchExpressions:\n    - scopeName: PriorityClass\n"
         "      operator: In\n      values: [" +
         quoted(m.priorityClass) + "]\n";
  return y;
}

// Which namespaces a quota lands in, or nullopt (with a note) when that cannot be known.
std::optional<std::vector<std::string>> targets(
    const policy::Quota& q, const policy::PolicySet& p,
    const std::optional<std::vector<NamespaceInfo>>& namespaces, std::vector<std::string>& notes) {
  std::vector<std::string> out;
  if (!namespaces) {
    if (q.namespaces.names.empty() || !q.namespaces.labels.empty()) {
      notes.push_back("quota " + q.name +
                      " selects namespaces by labels: pass --namespaces ns.json (kubectl get ns "
                      "-o json) or --namespace NAME=label=value to render it");
      return std::nullopt;
    }
    out = q.namespaces.names;
  } else {
    for (const auto& ns : *namespaces)
      if (q.namespaces.matches(ns.name, ns.labels)) out.push_back(ns.name);
  }
  std::vector<std::string> kept;
  for (const auto& name : out) {
    const kube::Labels* labels = nullptr;
    if (namespaces)
      for (const auto& ns : *namespaces)
        if (ns.name == name) labels = &ns.labels;
    if (p.exemptNamespaces.covers(name, labels ? *labels : kube::Labels{}))
      notes.push_back("quota " + q.name + ": namespace " + name + " is exempt, not rendered");
    else
      kept.push_back(name);
  }
  return kept;
}

// Per-class budgets become quotas scoped to the class's PriorityClass.
std::vector<Manifest> classManifests(const policy::Quota& q, const policy::PolicySet& p,
                                     std::vector<std::string>& notes) {
  std::map<std::string, Manifest> byPriority;
  std::map<std::string, double> budget;
  for (const auto& [className, ge] : q.perClass) {
    const auto* c = p.findClass(className);
    if (c == nullptr || !c->priorityClassName) {
      notes.push_back("quota " + q.name + ": class " + className +
                      " sets no priorityClassName, so its budget has no ResourceQuota scope");
      continue;
    }
    auto& m = byPriority[*c->priorityClassName];
    if (!m.className.empty()) {
      notes.push_back("quota " + q.name + ": classes " + m.className + " and " + className +
                      " share priority class " + *c->priorityClassName +
                      "; their budgets are summed in one ResourceQuota");
      m.className += "+" + className;
    } else {
      m.className = className;
    }
    m.priorityClass = *c->priorityClassName;
    m.quota = q.name;
    budget[m.priorityClass] += ge;
    for (const auto& r : classResources(p, *c)) m.hard[r] = 0;
  }
  std::vector<Manifest> out;
  for (auto& [pc, m] : byPriority) {
    for (auto& [r, n] : m.hard) n = unitsWithin(budget[pc], r, p).value_or(0);
    m.name = dnsName("gpua-" + q.name + "-" + m.className);
    out.push_back(m);
  }
  return out;
}

}  // namespace

std::vector<NamespaceInfo> namespacesFromJson(const rapidjson::Value& list) {
  std::vector<NamespaceInfo> out;
  auto add = [&](const rapidjson::Value& ns) {
    auto name = json::path(ns, "metadata", "name");
    if (name.empty()) return;
    out.push_back({std::string(name), json::labelsOf(ns)});
  };
  const auto* items = list.IsArray() ? &list : json::member(list, "items");
  if (items != nullptr && items->IsArray()) {
    for (const auto& ns : items->GetArray())
      if (const auto kind = json::string(json::member(ns, "kind"));
          kind.empty() || kind == "Namespace")
        add(ns);
  } else if (list.IsObject()) {
    add(list);
  }
  return out;
}

NamespaceInfo parseNamespaceSpec(std::string_view spec) {
  NamespaceInfo info;
  const auto eq = spec.find('=');
  info.name = std::string(spec.substr(0, eq));
  if (info.name.empty())
    throw NamespaceSpecError("--namespace \"" + std::string(spec) +
                             "\": expected NAME or NAME=label=value,label=value");
  if (eq == std::string_view::npos) return info;
  auto rest = spec.substr(eq + 1);
  while (!rest.empty()) {
    const auto comma = rest.find(',');
    const auto pair = rest.substr(0, comma);
    const auto peq = pair.find('=');
    if (peq == std::string_view::npos || peq == 0)
      throw NamespaceSpecError("--namespace \"" + std::string(spec) + "\": label \"" +
                               std::string(pair) + "\" is not key=value");
    info.labels[std::string(pair.substr(0, peq))] = std::string(pair.substr(peq + 1));
    rest = comma == std::string_view::npos ? std::string_view() : rest.substr(comma + 1);
  }
  return info;
}

QuotaRender renderResourceQuotas(const policy::PolicySet& policy,
                                 const std::optional<std::vector<NamespaceInfo>>& namespaces) {
  QuotaRender out;
  std::string body;
  for (const auto& q : policy.quotas) {
    const auto where = targets(q, policy, namespaces, out.notes);
    if (!where) continue;
    if (where->empty()) {
      out.notes.push_back("quota " + q.name + " matches no namespace");
      continue;
    }
    if (q.scope == policy::Quota::Scope::Shared && where->size() > 1)
      out.notes.push_back("quota " + q.name + " is one budget shared by " +
                          std::to_string(where->size()) +
                          " namespaces; a ResourceQuota is per namespace, so each gets the whole "
                          "budget as an upper bound and only the webhook enforces the sum");
    const auto limits = namespaceLimits(q, policy);
    const auto perClass = classManifests(q, policy, out.notes);
    for (const auto& ns : *where) {
      if (!limits.empty()) {
        body += emit({dnsName("gpua-" + q.name), ns, q.name, "", "", limits}, policy.revision);
        ++out.manifests;
      }
      for (auto m : perClass) {
        m.ns = ns;
        body += emit(m, policy.revision);
        ++out.manifests;
      }
    }
  }
  out.yaml = "# ResourceQuotas rendered by `gpu-admission quotas render` from policy " +
             policy.name + " (revision " + policy.revision + ").\n" +
             "# GPU-equivalent budgets B become requests.<resource> = floor(B / GE per unit):\n"
             "# never stricter than the webhook, which enforces the exact GPU-equivalent sum.\n";
  for (const auto& n : out.notes) out.yaml += "# NOTE: " + n + "\n";
  out.yaml += body;
  return out;
}

}  // namespace gpua::inventory
