// How a policy picks namespaces: by name (any of `names`) AND by labels. The label selector
// itself is Kubernetes' (kube/label_selector.hpp).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "kube/label_selector.hpp"

namespace gpua::policy {

// Both empty = every namespace.
struct NamespaceSelector {
  std::vector<std::string> names;
  kube::LabelSelector labels;

  bool empty() const { return names.empty() && labels.empty(); }

  bool matches(std::string_view ns, const kube::Labels& nsLabels) const {
    if (!names.empty()) {
      bool found = false;
      for (const auto& n : names)
        if (n == ns) found = true;
      if (!found) return false;
    }
    return labels.matches(nsLabels);
  }
};

}  // namespace gpua::policy
