// A pool's matchExpressions: node selector requirements with every operator node affinity has
// (In, NotIn, Exists, DoesNotExist, Gt, Lt), checked as the apiserver would check them in a
// pod, so a requirement the engine writes into a pod is always valid there.
#include "policy/parse.hpp"

namespace gpua::policy {

namespace {

// Kubernetes' ValidateNodeSelectorRequirement: In/NotIn need values, Exists/DoesNotExist take
// none, Gt/Lt take exactly one integer.
bool checkValues(YamlReader& r, const MapReader& m, const NodeRequirement& req) {
  const std::string op = nodeOperatorName(req.op);
  switch (req.op) {
    case NodeOperator::In:
    case NodeOperator::NotIn:
      if (!req.values.empty()) return true;
      r.error(m.node(), m.path("values"), "operator " + op + " needs values");
      return false;
    case NodeOperator::Exists:
    case NodeOperator::DoesNotExist:
      if (!m.has("values")) return true;
      r.error(m.get("values"), m.path("values"), "operator " + op + " takes no values");
      return false;
    case NodeOperator::Gt:
    case NodeOperator::Lt: {
      int64_t n = 0;
      if (req.values.size() == 1 && parseNodeInteger(req.values.front(), n)) return true;
      r.error(m.has("values") ? m.get("values") : m.node(), m.path("values"),
              "operator " + op + " needs exactly one integer value",
              "e.g. {key: nvidia.com/gpu.count, operator: " + op + ", values: [\"4\"]}");
      return false;
    }
  }
  return false;
}

std::optional<NodeRequirement> parseNodeRequirement(YamlReader& r, const YAML::Node& node,
                                                    const std::string& path) {
  MapReader m(r, node, path, {"key", "operator", "values"});
  if (!m.valid()) return std::nullopt;
  const bool hasKey = m.require("key");  // both asked, so both missing keys are reported
  const bool complete = m.require("operator") && hasKey;
  if (!complete) return std::nullopt;
  auto key = r.name(m.get("key"), m.path("key"));
  auto op = r.enumeration<NodeOperator>(m.get("operator"), m.path("operator"),
                                        {{"In", NodeOperator::In},
                                         {"NotIn", NodeOperator::NotIn},
                                         {"Exists", NodeOperator::Exists},
                                         {"DoesNotExist", NodeOperator::DoesNotExist},
                                         {"Gt", NodeOperator::Gt},
                                         {"Lt", NodeOperator::Lt}});
  NodeRequirement req;
  // Label values, so "" is one (Kubernetes accepts it, as in nodeSelector {k: ""}).
  if (m.has("values")) req.values = r.stringValues(m.get("values"), m.path("values"));
  if (!key || !op) return std::nullopt;
  req.key = *key;
  req.op = *op;
  if (!checkValues(r, m, req)) return std::nullopt;
  return req;
}

}  // namespace

NodeRequirements parseNodeRequirements(YamlReader& r, const YAML::Node& node,
                                       const std::string& path) {
  NodeRequirements out;
  if (!r.expectList(node, path)) return out;
  for (std::size_t i = 0; i < node.size(); ++i)
    if (auto req = parseNodeRequirement(r, node[i], indexPath(path, i))) out.push_back(*req);
  return out;
}

}  // namespace gpua::policy
