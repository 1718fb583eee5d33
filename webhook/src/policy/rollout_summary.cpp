#include "policy/rollout_summary.hpp"

namespace gpua::policy {

namespace {

const char* modeWord(Mode m) {
  switch (m) {
    case Mode::Enforce:
      return "enforce";
    case Mode::Warn:
      return "warn";
    case Mode::Audit:
      return "audit";
  }
  return "enforce";
}

const char* operatorWord(SelectorOperator op) {
  switch (op) {
    case SelectorOperator::In:
      return " in ";
    case SelectorOperator::NotIn:
      return " notin ";
    case SelectorOperator::Exists:
      return " exists";
    case SelectorOperator::DoesNotExist:
      return " does not exist";
  }
  return " ";
}

std::string joined(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& i : items) out += (out.empty() ? "" : ",") + i;
  return out;
}

// "namespaces a,b with labels env=dev,tier in (x,y)".
std::string describeSelector(const NamespaceSelector& s) {
  std::string out = s.names.empty() ? "namespaces" : "namespaces " + joined(s.names);
  std::vector<std::string> labels;
  for (const auto& [k, v] : s.labels.matchLabels) labels.push_back(k + "=" + v);
  for (const auto& r : s.labels.matchExpressions) {
    const bool listed = r.op == SelectorOperator::In || r.op == SelectorOperator::NotIn;
    // Appended piece by piece: `"(" + std::string&&` trips GCC 12's false -Wrestrict at -O3
    // (GCC bug 105329), which -Werror turns into a failed Release build.
    std::string term = r.key + operatorWord(r.op);
    if (listed) term.append("(").append(joined(r.values)).append(")");
    labels.push_back(std::move(term));
  }
  if (!labels.empty()) out += " with labels " + joined(labels);
  return out;
}

}  // namespace

std::vector<std::string> describeRollout(const PolicySet& p) {
  std::vector<std::string> out;
  if (!p.exemptNamespaces.empty()) out.push_back(describeSelector(p.exemptNamespaces) + ": exempt");
  bool catchAll = false;
  for (const auto& r : p.rollout) {
    const bool all = !r.namespaces || r.namespaces->empty();
    out.push_back(std::string(all ? (out.empty() ? "every namespace" : "every other namespace")
                                  : describeSelector(*r.namespaces)) +
                  ": " + modeWord(r.mode));
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

}  // namespace gpua::policy
