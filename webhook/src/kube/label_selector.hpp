// Kubernetes' label selector (matchLabels + matchExpressions, metav1.LabelSelector) and the label
// map it reads: what the policy, the engine and the cluster decoders mean by labels.
#pragma once

#include <map>
#include <string>
#include <vector>

namespace gpua::kube {

using Labels = std::map<std::string, std::string, std::less<>>;

enum class SelectorOperator { In, NotIn, Exists, DoesNotExist };

struct SelectorRequirement {
  std::string key;
  SelectorOperator op = SelectorOperator::Exists;
  std::vector<std::string> values;
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
    for (const auto& r : matchExpressions) {
      auto it = labels.find(r.key);
      const bool has = it != labels.end();
      auto inValues = [&] {
        for (const auto& v : r.values)
          if (has && it->second == v) return true;
        return false;
      };
      switch (r.op) {
        case SelectorOperator::Exists:
          if (!has) return false;
          break;
        case SelectorOperator::DoesNotExist:
          if (has) return false;
          break;
        case SelectorOperator::In:
          if (!inValues()) return false;
          break;
        case SelectorOperator::NotIn:
          if (inValues()) return false;
          break;
      }
    }
    return true;
  }
};

}  // namespace gpua::kube
