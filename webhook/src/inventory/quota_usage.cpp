#include "inventory/quota_usage.hpp"

#include <algorithm>
#include <set>

namespace gpua::inventory {

namespace {

// Every namespace the snapshot knows of, with its labels (empty when unknown).
std::vector<std::pair<std::string_view, const kube::Labels*>> knownNamespaces(
    const engine::UsageSnapshot& usage) {
  static const kube::Labels kNone;
  std::set<std::string_view> names;
  for (const auto& [ns, labels] : usage.namespaceLabels) names.insert(ns);
  for (const auto& [ns, u] : usage.namespaces) names.insert(ns);
  std::vector<std::pair<std::string_view, const kube::Labels*>> out;
  for (const auto ns : names) {
    const auto it = usage.namespaceLabels.find(ns);
    out.emplace_back(ns, it == usage.namespaceLabels.end() ? &kNone : &it->second);
  }
  return out;
}

// What namespace `u` uses of a scope: everything (className empty) or one class.
double usedOf(const engine::NamespaceUsage& u, const std::string& className) {
  if (className.empty()) return u.gpuEquivalents;
  const auto it = u.byClass.find(className);
  return it == u.byClass.end() ? 0 : it->second;
}

struct Scope {
  std::string name;       // "total" | "class:<c>"
  std::string className;  // "" = all
  std::optional<double> limit;
};

std::vector<Scope> scopesOf(const policy::Quota& q) {
  std::vector<Scope> out{{"total", "", q.gpuEquivalents}};
  for (const auto& [cls, limit] : q.perClass) out.push_back({"class:" + cls, cls, limit});
  return out;
}

QuotaFigure figure(
    const policy::Quota& q, const Scope& scope, std::string name,
    const std::vector<std::pair<std::string_view, const engine::NamespaceUsage*>>& namespaces,
    std::size_t top) {
  QuotaFigure f{q.name, std::move(name), 0, scope.limit, {}};
  for (const auto& [ns, u] : namespaces) {
    const double used = usedOf(*u, scope.className);
    f.used += used;
    if (used > 0) f.topNamespaces.emplace_back(std::string(ns), used);
  }
  std::stable_sort(f.topNamespaces.begin(), f.topNamespaces.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });
  if (f.topNamespaces.size() > top) f.topNamespaces.resize(top);
  return f;
}

}  // namespace

std::vector<QuotaFigure> quotaFigures(const policy::PolicySet& policy,
                                      const engine::UsageSnapshot& usage,
                                      std::size_t topNamespaces) {
  static const engine::NamespaceUsage kIdle;
  const auto all = knownNamespaces(usage);
  std::vector<QuotaFigure> out;
  for (const auto& q : policy.quotas) {
    std::vector<std::pair<std::string_view, const engine::NamespaceUsage*>> covered;
    for (const auto& [ns, labels] : all) {
      if (!q.namespaces.matches(ns, *labels)) continue;
      const auto it = usage.namespaces.find(ns);
      covered.emplace_back(ns, it == usage.namespaces.end() ? &kIdle : &it->second);
    }
    for (const auto& scope : scopesOf(q)) {
      if (q.scope == policy::Quota::Scope::Shared) {
        out.push_back(figure(q, scope, scope.name, covered, topNamespaces));
        continue;
      }
      for (const auto& one : covered) {
        const std::string prefix = "namespace:" + std::string(one.first);
        out.push_back(figure(q, scope, scope.className.empty() ? prefix : prefix + "/" + scope.name,
                             {one}, topNamespaces));
      }
    }
  }
  return out;
}

}  // namespace gpua::inventory
