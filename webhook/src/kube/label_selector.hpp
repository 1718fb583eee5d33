// Kubernetes' label selector (matchLabels + matchExpressions, metav1.LabelSelector) and the label
// map it reads: what the policy, the engine and the cluster decoders mean by labels.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gpua::kube {

using Labels = std::map<std::string, std::string, std::less<>>;

enum class SelectorOperator { In, NotIn, Exists, DoesNotExist };

// Kubernetes' set-based requirement on one label: the one rule label selectors, node affinity
// and pool selection share. `value` is nullopt when the object lacks the key. An empty value is
// a value like any other (Kubernetes accepts `k: ""` as a label and in `values`): `In [""]`
// wants the key set to "", and `NotIn [""]` also holds where the key is absent, as the
// scheduler reads it (with `Exists` beside it: "set and not empty").
template <typename Values>
bool setRequirementHolds(SelectorOperator op, const Values& values,
                         std::optional<std::string_view> value) {
  auto listed = [&] {
    for (const auto& v : values)
      if (value == std::string_view(v)) return true;
    return false;
  };
  switch (op) {
    case SelectorOperator::In:
      return value && listed();
    case SelectorOperator::NotIn:
      return !value || !listed();
    case SelectorOperator::Exists:
      return value.has_value();
    case SelectorOperator::DoesNotExist:
      return !value;
  }
  return false;
}

struct SelectorRequirement {
  std::string key;
  SelectorOperator op = SelectorOperator::Exists;
  std::vector<std::string> values;

  bool matches(const Labels& labels) const {
    const auto it = labels.find(key);
    return setRequirementHolds(
        op, values,
        it == labels.end() ? std::nullopt : std::optional<std::string_view>(it->second));
  }
};

struct LabelSelector {
  Labels matchLabels;
  std::vector<SelectorRequirement> matchExpressions;

  bool empty() const { return matchLabels.empty() && matchExpressions.empty(); }

  // An empty selector matches everything, as in Kubernetes.
  bool matches(const Labels& labels) const {
    for (const auto& [k, v] : matchLabels) {
      auto it = labels.find(k);
      if (it == labels.end() || it->second != v) return false;
    }
    for (const auto& r : matchExpressions)
      if (!r.matches(labels)) return false;
    return true;
  }
};

}  // namespace gpua::kube
