#include "policy/rollout_summary.hpp"

#include <algorithm>

namespace gpua::policy {

namespace {

const char* operatorWord(kube::SelectorOperator op) {
  switch (op) {
    case kube::SelectorOperator::In:
      return " in ";
    case kube::SelectorOperator::NotIn:
      return " notin ";
    case kube::SelectorOperator::Exists:
      return " exists";
    case kube::SelectorOperator::DoesNotExist:
      return " does not exist";
  }
  return " ";
}

std::string joined(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& i : items) out += (out.empty() ? "" : ",") + i;
  return out;
}

// "env=dev,tier in (x,y)".
std::string describeLabels(const kube::LabelSelector& s) {
  std::vector<std::string> labels;
  for (const auto& [k, v] : s.matchLabels) labels.push_back(k + "=" + v);
  for (const auto& r : s.matchExpressions) {
    const bool listed = r.op == kube::SelectorOperator::In || r.op == kube::SelectorOperator::NotIn;
    // Appended piece by piece: `"(" + std::string&&` trips GCC 12's false -Wrestrict at -O3
    // (GCC bug 105329), which -Werror turns into a failed Release build.
    std::string term = r.key + operatorWord(r.op);
    if (listed) term.append("(").append(joined(r.values)).append(")");
    labels.push_back(std::move(term));
  }
  return joined(labels);
}

// "namespaces a,b with labels env=dev,tier in (x,y)": a name AND the labels.
std::string describeSelector(const NamespaceSelector& s) {
  std::string out = s.names.empty() ? "namespaces" : "namespaces " + joined(s.names);
  if (!s.labels.empty()) out += " with labels " + describeLabels(s.labels);
  return out;
}

// "namespaces a,b, or namespaces with labels env=dev": a name OR the labels.
std::string describeExemption(const NamespaceExemption& e) {
  std::string out = e.names.empty() ? "" : "namespaces " + joined(e.names);
  if (!e.labels.empty())
    out += (out.empty() ? "" : ", or ") + std::string("namespaces with labels ") +
           describeLabels(e.labels);
  return out;
}

}  // namespace

std::vector<std::string> describeRollout(const PolicySet& p) {
  std::vector<std::string> out;
  if (!p.exemptNamespaces.empty()) out.push_back(describeExemption(p.exemptNamespaces) + ": exempt");
  bool catchAll = false;
  for (const auto& r : p.rollout) {
    const bool all = !r.namespaces || r.namespaces->empty();
    out.push_back(std::string(all ? (out.empty() ? "every namespace" : "every other namespace")
                                  : describeSelector(*r.namespaces)) +
                  ": " + modeName(r.mode));
    if (all) {
      catchAll = true;
      break;  // first match wins: later rules never apply
    }
  }
  if (!catchAll)
    out.push_back(std::string(out.empty() ? "every namespace" : "every other namespace") +
                  ": enforce");
  return out;
}

std::string suspectRolloutLoss(const PolicySet& before, const PolicySet& after) {
  if (after.rolloutDeclared || !before.rolloutDeclared) return {};
  const bool softened = std::any_of(before.rollout.begin(), before.rollout.end(),
                                    [](const RolloutRule& r) { return r.mode != Mode::Enforce; });
  if (!softened) return {};
  return "the new policy has no rollout section, so every namespace would be enforced, where the "
         "policy in force has warn or audit namespaces: a policy file cut short? To enforce "
         "everywhere on purpose, write the section (rollout: [] or - mode: enforce)";
}

const char* modeName(Mode m) {
  switch (m) {
    case Mode::Enforce:
      return "enforce";
    case Mode::Warn:
      return "warn";
    case Mode::Audit:
      return "audit";
    case Mode::Observe:
      return "observe";
  }
  return "enforce";
}

}  // namespace gpua::policy
