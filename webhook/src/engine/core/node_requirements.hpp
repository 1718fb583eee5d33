// Node selector requirements (key, operator, values) with Kubernetes' node affinity semantics,
// and the intersection question placement-conflict asks: can any node's labels satisfy all of
// these at once? Generic over where a requirement comes from (a pod's nodeSelector, one of its
// nodeSelectorTerms, spec.nodeName, a pool's selection), so pool selection may use every
// operator too.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "kube/label_selector.hpp"
#include "policy/node_requirement.hpp"

namespace gpua::engine {

// One operator vocabulary for pools (policy) and pods (engine).
using policy::NodeOperator;

// Views into the pod document or the PolicySet: valid while both live (one decide() call).
struct NodeRequirement {
  std::string_view key;
  NodeOperator op = NodeOperator::Exists;
  std::vector<std::string_view> values;
  bool field = false;  // a matchFields requirement (key metadata.name), not a label
};

// "In" -> In ...; nullopt for an operator Kubernetes does not know.
std::optional<NodeOperator> nodeOperatorOf(std::string_view name);

// False when the requirement is malformed the way the apiserver rejects (In/NotIn without
// values, Exists/DoesNotExist with values, Gt/Lt without exactly one value). Such a pod never
// gets created, so nothing is concluded from it.
bool wellFormed(const NodeRequirement& r);

// `nvidia.com/gpu.present In [false]`, `metadata.name In [n1]`, `foo Exists`.
std::string describe(const NodeRequirement& r);

// Whether a node named `nodeName` with `labels` satisfies `r` (Kubernetes' nodeaffinity: Gt/Lt
// compare base-10 int64s; an unparsable value matches nothing).
bool satisfiedBy(const NodeRequirement& r, const kube::Labels& labels, std::string_view nodeName);

// The key no label value (or node name, for field requirements) can satisfy: the requirements
// on it contradict each other. Nullopt when some node could satisfy every requirement, or when
// a requirement is not wellFormed() (undecidable: never a false alarm).
struct Contradiction {
  std::string_view key;
  bool field = false;
};
std::optional<Contradiction> findContradiction(std::span<const NodeRequirement* const> all);

}  // namespace gpua::engine
