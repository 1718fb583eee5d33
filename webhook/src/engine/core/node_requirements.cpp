#include "engine/core/node_requirements.hpp"

#include <algorithm>
#include <cstdint>
#include <limits>

namespace gpua::engine {

namespace {

// strconv.ParseInt(s, 10, 64), which Kubernetes uses for Gt/Lt.
std::optional<int64_t> parseInt(std::string_view s) {
  int64_t v = 0;
  if (!policy::parseNodeInteger(s, v)) return std::nullopt;
  return v;
}

bool contains(const std::vector<std::string_view>& values, std::string_view v) {
  return std::find(values.begin(), values.end(), v) != values.end();
}

// What the requirements on one key demand of its value, folded together.
struct KeyDemand {
  bool mustExist = false;     // In, Exists, Gt, Lt
  bool mustNotExist = false;  // DoesNotExist
  bool impossible = false;    // a Gt/Lt bound that is not an integer matches nothing
  std::optional<std::vector<std::string_view>> allowed;  // intersection of the In lists
  std::vector<std::string_view> excluded;                // union of the NotIn lists
  int64_t above = std::numeric_limits<int64_t>::min();   // value > above (Gt)
  int64_t below = std::numeric_limits<int64_t>::max();   // value < below (Lt)
  bool bounded = false;

  void add(const NodeRequirement& r) {
    switch (r.op) {
      case NodeOperator::In:
        mustExist = true;
        if (!allowed) {
          allowed = r.values;
        } else {
          std::erase_if(*allowed, [&](std::string_view v) { return !contains(r.values, v); });
        }
        break;
      case NodeOperator::NotIn:
        excluded.insert(excluded.end(), r.values.begin(), r.values.end());
        break;
      case NodeOperator::Exists:
        mustExist = true;
        break;
      case NodeOperator::DoesNotExist:
        mustNotExist = true;
        break;
      case NodeOperator::Gt:
      case NodeOperator::Lt: {
        mustExist = true;
        bounded = true;
        const auto bound = parseInt(r.values.front());
        if (!bound) {
          impossible = true;
        } else if (r.op == NodeOperator::Gt) {
          above = std::max(above, *bound);
        } else {
          below = std::min(below, *bound);
        }
        break;
      }
    }
  }

  bool fits(std::string_view v) const {
    if (contains(excluded, v)) return false;
    if (!bounded) return true;
    const auto n = parseInt(v);
    return n && *n > above && *n < below;
  }

  bool satisfiable() const {
    if (impossible || (mustExist && mustNotExist)) return false;
    if (!mustExist) return true;  // an absent label satisfies NotIn and DoesNotExist
    if (allowed)
      return std::any_of(allowed->begin(), allowed->end(), [&](auto v) { return fits(v); });
    if (!bounded) return true;  // infinitely many values avoid a finite NotIn list
    // Label values start with an alphanumeric, so no node label is negative. NotIn cannot rule
    // an integer out: "7" excluded still leaves "07".
    const int64_t low = std::max<int64_t>(above, -1);
    return below > low && below - 1 > low;  // an integer strictly between
  }
};

}  // namespace

std::optional<NodeOperator> nodeOperatorOf(std::string_view name) {
  if (name == "In") return NodeOperator::In;
  if (name == "NotIn") return NodeOperator::NotIn;
  if (name == "Exists") return NodeOperator::Exists;
  if (name == "DoesNotExist") return NodeOperator::DoesNotExist;
  if (name == "Gt") return NodeOperator::Gt;
  if (name == "Lt") return NodeOperator::Lt;
  return std::nullopt;
}

bool wellFormed(const NodeRequirement& r) {
  if (r.key.empty()) return false;
  switch (r.op) {
    case NodeOperator::In:
    case NodeOperator::NotIn:
      return !r.values.empty();
    case NodeOperator::Exists:
    case NodeOperator::DoesNotExist:
      return r.values.empty() && !r.field;
    case NodeOperator::Gt:
    case NodeOperator::Lt:
      return r.values.size() == 1 && !r.field;
  }
  return false;
}

std::string describe(const NodeRequirement& r) {
  std::string out(r.key);
  out.append(" ").append(policy::nodeOperatorName(r.op));
  if (r.op == NodeOperator::Exists || r.op == NodeOperator::DoesNotExist) return out;
  out += " [";
  for (std::size_t i = 0; i < r.values.size(); ++i)
    out.append(i ? ", " : "").append(policy::displayValue(r.values[i]));
  out += "]";
  return out;
}

bool satisfiedBy(const NodeRequirement& r, const kube::Labels& labels, std::string_view nodeName) {
  std::optional<std::string_view> value;
  if (r.field) {
    value = r.key == "metadata.name" ? std::optional(nodeName) : std::nullopt;
  } else if (const auto it = labels.find(r.key); it != labels.end()) {
    value = it->second;
  }
  // The pools' rule (policy::requirementMatches), so supply, conflicts and mutation agree.
  return policy::requirementMatches(r.op, r.values, value.has_value(), value.value_or(""));
}

std::optional<Contradiction> findContradiction(std::span<const NodeRequirement* const> all) {
  for (const auto* r : all)
    if (!wellFormed(*r)) return std::nullopt;
  for (std::size_t i = 0; i < all.size(); ++i) {
    const auto* first = all[i];
    bool seen = false;  // the key was folded already at an earlier index
    for (std::size_t j = 0; j < i && !seen; ++j)
      seen = all[j]->key == first->key && all[j]->field == first->field;
    if (seen) continue;
    KeyDemand demand;
    for (std::size_t j = i; j < all.size(); ++j)
      if (all[j]->key == first->key && all[j]->field == first->field) demand.add(*all[j]);
    if (!demand.satisfiable()) return Contradiction{first->key, first->field};
  }
  return std::nullopt;
}

}  // namespace gpua::engine
