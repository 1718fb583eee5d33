#include "engine/classify/class_hints.hpp"

#include <vector>

#include "engine/core/text.hpp"

namespace gpua::engine {

namespace {

bool onlyLabels(const policy::MatchRule& r) {
  policy::MatchRule copy = r;
  copy.labels.clear();
  return !r.labels.empty() && copy.empty();
}

bool usable(const policy::WorkloadClass& c, const HintScope& s) {
  if (c.gpus.request == policy::GpuRequest::Forbidden) return false;
  return !c.allowedNamespaces || c.allowedNamespaces->matches(s.namespaceName, s.namespaceLabels);
}

}  // namespace

std::string classLabel(const policy::WorkloadClass& cls) {
  if (!cls.match.all.empty()) return {};  // a label alone would not be enough
  for (const auto& rule : cls.match.any) {
    if (!onlyLabels(rule)) continue;
    std::vector<std::string> pairs;
    for (const auto& [k, v] : rule.labels) pairs.push_back(k + "=" + v);
    return text::join(pairs, ",");
  }
  return {};
}

std::string gpuClassLabels(const HintScope& scope,
                           const std::function<bool(const policy::WorkloadClass&)>& accept) {
  std::vector<std::string> labels;
  std::string commonKey;
  bool oneKey = true;
  for (const auto& c : scope.policy.classes) {
    if (&c == scope.before) break;
    if (!usable(c, scope) || !accept(c)) continue;
    const std::string label = classLabel(c);
    if (label.empty()) continue;
    const auto eq = label.find('=');
    const std::string key = label.substr(0, eq);
    if (label.find(',') != std::string::npos || (!commonKey.empty() && key != commonKey))
      oneKey = false;
    if (commonKey.empty()) commonKey = key;
    labels.push_back(label);
  }
  if (labels.empty()) return {};
  if (!oneKey || labels.size() == 1) return text::join(labels, " or ");
  std::vector<std::string> values;
  for (const auto& l : labels) values.push_back(l.substr(commonKey.size() + 1));
  return commonKey + "=<" + text::join(values, "|") + ">";
}

}  // namespace gpua::engine
