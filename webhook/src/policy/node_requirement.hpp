// One node selector requirement (key, operator, values) as Kubernetes writes them in
// nodeAffinity's matchExpressions. Pools select their nodes with a list of these (a pool's
// nodeSelector map is the same thing with operator In and one value), so every check that
// reasons about placement (mutation, targeting, conflicts) works on one generic form.
#pragma once

#include <charconv>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "policy/namespace_selector.hpp"

namespace gpua::policy {

enum class NodeOperator { In, NotIn, Exists, DoesNotExist, Gt, Lt };

inline const char* nodeOperatorName(NodeOperator op) {
  switch (op) {
    case NodeOperator::In:
      return "In";
    case NodeOperator::NotIn:
      return "NotIn";
    case NodeOperator::Exists:
      return "Exists";
    case NodeOperator::DoesNotExist:
      return "DoesNotExist";
    case NodeOperator::Gt:
      return "Gt";
    case NodeOperator::Lt:
      return "Lt";
  }
  return "?";
}

// Kubernetes parses Gt/Lt operands and label values as 64-bit integers with Go's
// strconv.ParseInt(s, 10, 64): an optional sign ('+' too), then digits; anything else fails.
inline bool parseNodeInteger(std::string_view s, int64_t& out) {
  if (!s.empty() && s.front() == '+') {
    s.remove_prefix(1);
    if (!s.empty() && s.front() == '-') return false;  // "+-5": one sign at most
  }
  if (s.empty()) return false;
  const char* end = s.data() + s.size();
  auto [p, ec] = std::from_chars(s.data(), end, out);
  return ec == std::errc() && p == end;
}

// The set operators in label selectors' vocabulary; Gt and Lt have none (callers handle them).
inline kube::SelectorOperator setOperatorOf(NodeOperator op) {
  switch (op) {
    case NodeOperator::NotIn:
      return kube::SelectorOperator::NotIn;
    case NodeOperator::Exists:
      return kube::SelectorOperator::Exists;
    case NodeOperator::DoesNotExist:
      return kube::SelectorOperator::DoesNotExist;
    default:
      return kube::SelectorOperator::In;
  }
}

// Whether a node with `value` for the key (or without the key, `has` false) satisfies
// `op values`, with the semantics of k8s.io/component-helpers/scheduling/corev1/nodeaffinity:
// the set operators are label selectors' (kube::setRequirementHolds, empty values included),
// Gt and Lt compare integers.
template <typename Values>
bool requirementMatches(NodeOperator op, const Values& values, bool has, std::string_view value) {
  int64_t n = 0, bound = 0;
  switch (op) {
    case NodeOperator::In:
    case NodeOperator::NotIn:
    case NodeOperator::Exists:
    case NodeOperator::DoesNotExist:
      return kube::setRequirementHolds(setOperatorOf(op), values,
                                       has ? std::optional(value) : std::nullopt);
    case NodeOperator::Gt:
    case NodeOperator::Lt:
      if (!has || values.size() != 1 || !parseNodeInteger(value, n) ||
          !parseNodeInteger(values.front(), bound))
        return false;
      return op == NodeOperator::Gt ? n > bound : n < bound;
  }
  return false;
}

// Whether every node that satisfies `haveOp have` on a label key satisfies `wantOp want` on the
// same key: a pod's `k In [v]` (or nodeSelector k: v) implies a pool's `k Exists` and
// `k NotIn [""]`, `k DoesNotExist` implies any NotIn. One requirement alone, never a pair
// (`Exists` beside `NotIn [a]` is not combined): never a false "implied".
template <typename HaveValues, typename WantValues>
bool requirementImplies(NodeOperator haveOp, const HaveValues& have, NodeOperator wantOp,
                        const WantValues& want) {
  const auto contains = [](const auto& list, std::string_view v) {
    for (const auto& x : list)
      if (std::string_view(x) == v) return true;
    return false;
  };
  int64_t h = 0, w = 0;
  switch (haveOp) {
    case NodeOperator::In:
      if (have.empty()) return false;
      for (const auto& v : have)
        if (!requirementMatches(wantOp, want, true, v)) return false;
      return true;
    case NodeOperator::DoesNotExist:
      return requirementMatches(wantOp, want, false, "");
    case NodeOperator::Exists:
      return wantOp == NodeOperator::Exists;
    case NodeOperator::NotIn:
      if (wantOp != NodeOperator::NotIn) return false;
      for (const auto& v : want)
        if (!contains(have, v)) return false;
      return true;
    case NodeOperator::Gt:
    case NodeOperator::Lt:
      if (wantOp == NodeOperator::Exists) return true;
      if (wantOp != haveOp || have.size() != 1 || want.size() != 1 ||
          !parseNodeInteger(have.front(), h) || !parseNodeInteger(want.front(), w))
        return false;
      return haveOp == NodeOperator::Gt ? w <= h : w >= h;
  }
  return false;
}

// A value as messages show it: the empty value as "" (so `k In [""]` is not read as `k In []`).
inline std::string_view displayValue(std::string_view v) {
  return v.empty() ? "\"\"" : v;
}

// True when only nodes that carry the key can satisfy `op` (In, Exists, Gt, Lt): a pod naming
// the key with such a value is asking for those nodes.
inline bool operatorRequiresKey(NodeOperator op) {
  return op == NodeOperator::In || op == NodeOperator::Exists || op == NodeOperator::Gt ||
         op == NodeOperator::Lt;
}

struct NodeRequirement {
  std::string key;
  NodeOperator op = NodeOperator::In;
  // In/NotIn: one or more; Gt/Lt: exactly one integer; Exists/DoesNotExist: none (loader-checked).
  std::vector<std::string> values;

  bool operator==(const NodeRequirement&) const = default;

  bool matchesValue(bool has, std::string_view value) const {
    return requirementMatches(op, values, has, value);
  }
  bool matches(const kube::Labels& labels) const {
    const auto it = labels.find(key);
    return matchesValue(it != labels.end(), it != labels.end() ? it->second : std::string_view());
  }
  bool requiresKey() const { return operatorRequiresKey(op); }

  // "nvidia.com/gpu.count Gt 4", "k In [a, b]", "k Exists".
  std::string describe() const {
    std::string out = key + " " + nodeOperatorName(op);
    if (op == NodeOperator::Exists || op == NodeOperator::DoesNotExist) return out;
    if (op == NodeOperator::Gt || op == NodeOperator::Lt)
      return out + " " + (values.empty() ? std::string() : values.front());
    out += " [";
    for (std::size_t i = 0; i < values.size(); ++i)
      out.append(i ? ", " : "").append(displayValue(values[i]));
    return out + "]";
  }
};

using NodeRequirements = std::vector<NodeRequirement>;

// A requirement seen in place (a pool's nodeSelector entry is `key In [value]`).
struct NodeRequirementRef {
  std::string_view key;
  NodeOperator op = NodeOperator::In;
  std::span<const std::string> values;

  bool matchesValue(bool has, std::string_view value) const {
    return requirementMatches(op, values, has, value);
  }
  bool requiresKey() const { return operatorRequiresKey(op); }
};

// Every requirement holds (the matchExpressions of one nodeSelectorTerm are ANDed).
inline bool matchesAll(const NodeRequirements& reqs, const kube::Labels& labels) {
  for (const auto& r : reqs)
    if (!r.matches(labels)) return false;
  return true;
}

}  // namespace gpua::policy
