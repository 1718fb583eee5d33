// Where a pod asks to run, read in place as node requirements: spec.nodeSelector and
// spec.nodeName (ANDed with everything) and the required nodeSelectorTerms (ORed), plus the
// requirements a pool's selection puts on nodes. Placement-conflict intersects the two.
#pragma once

#include <string_view>
#include <vector>

#include "engine/core/node_requirements.hpp"
#include "engine/pod/pod_view.hpp"
#include "policy/policy_set.hpp"

namespace gpua::engine {

// Where a requirement of the pod came from, for messages.
enum class PlacementSource { NodeSelector, NodeName, Term };

struct PodRequirement {
  NodeRequirement req;
  PlacementSource source = PlacementSource::Term;
};

struct PlacementTerm {
  std::vector<PodRequirement> requirements;  // matchExpressions and matchFields, ANDed
  // False when the term holds something the engine cannot read (an unknown operator, a value
  // that is not a string): it is then assumed satisfiable, never reported.
  bool decidable = true;
};

struct PodPlacement {
  std::vector<PodRequirement> always;  // nodeSelector entries and spec.nodeName
  bool alwaysDecidable = true;
  // The required nodeSelectorTerms. A term with no requirements at all is skipped: the
  // mutation ANDs the pool into it, which is what makes it select nodes.
  std::vector<PlacementTerm> terms;
  std::vector<std::size_t> termIndex;  // terms[i] is nodeSelectorTerms[termIndex[i]]
  std::string_view nodeName;

  bool unconstrained() const { return always.empty() && terms.empty(); }
};

PodPlacement podPlacementOf(const PodView& pod);

// The requirements the pool's selection puts on a node (nodeSelector: key In [value]).
std::vector<NodeRequirement> poolRequirements(const policy::Pool& pool);

}  // namespace gpua::engine
