// spec.exempt.namespaces: the namespaces the webhook never judges. A namespace is exempt when its
// name is listed OR its labels match the selector. Unlike the other namespace selectors (names
// AND labels), the two halves are alternatives: that is the form the webhook configurations'
// namespaceSelector can express as exclusions (kubernetes.io/metadata.name NotIn the names, and
// the label), so the engine, the rendered quotas and the summaries agree with what the
// apiserver never sends.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "kube/label_selector.hpp"

namespace gpua::policy {

struct NamespaceExemption {
  std::vector<std::string> names;
  kube::LabelSelector labels;  // empty = no namespace is exempt by its labels

  bool empty() const { return names.empty() && labels.empty(); }

  bool covers(std::string_view ns, const kube::Labels& nsLabels) const {
    for (const auto& name : names)
      if (name == ns) return true;
    return !labels.empty() && labels.matches(nsLabels);
  }
};

}  // namespace gpua::policy
