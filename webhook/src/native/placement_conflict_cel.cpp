#include "native/placement_conflict_cel.hpp"

#include "engine/core/node_requirements.hpp"
#include "engine/pod/pod_placement.hpp"
#include "native/cel_text.hpp"
#include "native/pod_cel.hpp"

namespace gpua::native {

namespace {

using cel::str;

// The values of requirement `e` as a list(string), [] when it has none.
std::string values(const std::string& e) {
  return "(has(" + e + ".values) ? " + e + ".values : []).map(v, string(v))";
}

// A requirement in CEL is `[[id, operator, description], values]` (a list of string lists, so
// that pod and pool requirements share one type): id is "l:<label key>" or "f:<field key>"
// (engine::Contradiction's key and field), the description engine::describe()'s, the values
// those of In/NotIn/Gt/Lt.

// engine::describe() of a matchExpressions/matchFields entry `e`.
std::string describeExpression(const std::string& e) {
  return "string(" + e + ".key + \" \" + " + e + ".operator + (" + e +
         ".operator in [\"Exists\", \"DoesNotExist\"] ? \"\" : \" [\" + " + values(e) +
         ".map(v, v == \"\" ? \"\\\"\\\"\" : v).join(\", \") + \"]\"))";
}

// The apiserver's type check wants every element of a list literal of one type, and the terms
// come through a conditional (dyn): each part of a requirement is made a string explicitly.
std::string fromExpressions(const std::string& t, const char* list, const char* prefix) {
  const std::string l = t + "." + list;
  return "(has(" + l + ") ? " + l + ".map(e, [[string(\"" + prefix +
         "\" + e.key), string(e.operator), " + describeExpression("e") + "], " + values("e") +
         "]) : [])";
}

// The requirements of required nodeSelectorTerm `t`: matchExpressions, then matchFields.
std::string termRequirements(const std::string& t) {
  return fromExpressions(t, "matchExpressions", "l:") + " + " +
         fromExpressions(t, "matchFields", "f:");
}

// PodPlacement::always: the nodeSelector entries, then spec.nodeName.
std::string alwaysRequirements() {
  const std::string ns = "object.spec.nodeSelector";
  const std::string name = "object.spec.nodeName";
  return "(has(" + ns + ") ? " + ns +
         ".map(k, [[string(\"l:\" + k), \"In\", string(\"nodeSelector \" + k + " + "\"=\" + " + ns +
         "[k])], [string(" + ns + "[k])]]) : []) + (has(" + name + ") && " + name +
         " != \"\" ? [[[\"f:metadata.name\", \"In\", string(\"spec.nodeName \" + " + name +
         ")], [string(" + name + ")]]] : [])";
}

std::string poolRequirements(const policy::Pool& pool) {
  std::string out;
  for (const auto& r : engine::poolRequirements(pool)) {
    std::vector<std::string> values(r.values.begin(), r.values.end());
    out += (out.empty() ? "" : ", ");
    out += "[" + cel::strList({"l:" + std::string(r.key),
                               std::string(policy::nodeOperatorName(r.op)), engine::describe(r)});
    out += ", " + cel::strList(values) + "]";
  }
  return "[" + out + "]";
}

// policy::parseNodeInteger (Go's strconv.ParseInt(s, 10, 64)) of CEL string `s`, so that int()
// never fails: a sign, digits, and a value within int64.
std::string isInt(const std::string& s) {
  return "(" + s + ".matches(" + cel::kNodeIntegerPattern + ") && cel.bind(d, " + s +
         ".find('[1-9][0-9]*$'), size(d) < 19 || (size(d) == 19 && d <= (" + s +
         ".startsWith(\"-\") ? \"9223372036854775808\" : \"9223372036854775807\"))))";
}

// engine's KeyDemand::satisfiable() of `rs`, the requirements on one key.
std::string satisfiable(const std::string& rs) {
  const std::string exists = rs + ".exists(r, r[0][1] in [\"In\", \"Exists\", \"Gt\", \"Lt\"])";
  const std::string fits =
      "!" + rs +
      ".exists(r, r[0][1] == \"NotIn\" && v in r[1]) && (size(gts) + size(lts) == 0 || (" +
      isInt("v") +
      " && (size(gts) == 0 || int(v) > gts.max()) && (size(lts) == 0 || int(v) < lts.min())))";
  const std::string values =
      "cel.bind(ins, " + rs + ".filter(r, r[0][1] == \"In\"), cel.bind(gts, " + rs +
      ".filter(r, r[0][1] == \"Gt\").map(r, int(r[1][0])), cel.bind(lts, " + rs +
      ".filter(r, r[0][1] == \"Lt\").map(r, int(r[1][0])), size(ins) > 0 ? ins[0][1].exists(v, "
      "ins.all(r, v in r[1]) && " +
      fits +
      ") : size(gts) + size(lts) == 0 || cel.bind(low, size(gts) == 0 || gts.max() < -1 ? -1 : "
      "gts.max(), cel.bind(high, size(lts) == 0 ? 9223372036854775807 : lts.min(), high > low && "
      "high - 1 > low)))))";
  // A Gt/Lt bound that is not an integer matches nothing; && absorbs the int() errors it would
  // raise below.
  return "(!" + rs + ".exists(r, r[0][1] in [\"Gt\", \"Lt\"] && !(size(r[1]) == 1 && " +
         isInt("r[1][0]") + ")) && !(" + exists + " && " + rs +
         ".exists(r, r[0][1] == \"DoesNotExist\")) && (!" + exists + " || " + values + "))";
}

// The ids of `all` whose requirements contradict, in order.
std::string contradictions(const std::string& all) {
  const std::string a = "(" + all + ")";
  return a + ".filter(r, !" + satisfiable(a + ".filter(s, s[0][0] == r[0][0])") +
         ").map(r, r[0][0])";
}

struct ClassPools {
  std::vector<const policy::Pool*> pools;  // those that select nodes
  std::string list;                        // CEL: their requirement lists
};

ClassPools selecting(const policy::PolicySet& p, const policy::WorkloadClass& cls) {
  ClassPools out;
  if (cls.placement.via != policy::Placement::Via::NodeAffinity) return out;
  std::string lists;
  for (const auto& name : cls.pools) {
    const auto* pool = p.findPool(name);
    if (pool == nullptr || engine::poolRequirements(*pool).empty()) continue;
    out.pools.push_back(pool);
    lists += (lists.empty() ? "" : ", ") + poolRequirements(*pool);
  }
  out.list = "[" + lists + "]";
  return out;
}

// Binds pa (the nodeSelector and nodeName requirements) and terms (the required terms that hold
// requirements) around `body`.
std::string withPlacement(const std::string& body) {
  return "cel.bind(pa, variables.placementAlways, cel.bind(terms, "
         "variables.placementTerms.filter(t, size(t) > 0), " +
         body + "))";
}

std::string conflictOver(const ClassPools& cp) {
  // Every (term, pool) pair contradicts; without terms, the nodeSelector and nodeName alone.
  return "(size(pa) + size(terms) > 0 && (size(terms) == 0 ? [[]] : terms).all(tr, " + cp.list +
         ".all(pr, size(" + contradictions("pa + tr + pr") + ") > 0)))";
}

bool anyConflicts(const policy::PolicySet& p) {
  for (const auto& c : p.classes)
    if (!selecting(p, c).pools.empty()) return true;
  return false;
}

}  // namespace

std::vector<CelVariable> placementVariables(const policy::PolicySet& p) {
  if (!anyConflicts(p)) return {};
  return {{"placementAlways", alwaysRequirements()},
          {"placementTerms", requiredTerms() + ".map(t, " + termRequirements("t") + ")"}};
}

std::string placementConflictTest(const policy::PolicySet& p, const policy::WorkloadClass& cls) {
  const ClassPools cp = selecting(p, cls);
  if (cp.pools.empty()) return "";
  return "(variables.hasGpu && variables.skip != \"validateOnly\" && " +
         withPlacement(conflictOver(cp)) + ")";
}

std::string placementConflictViolations(const policy::PolicySet& p,
                                        const policy::WorkloadClass& cls) {
  const ClassPools cp = selecting(p, cls);
  if (cp.pools.empty()) return "";
  const policy::Pool& first = *cp.pools.front();
  // The finding is the first term's and the first pool's; its key the first that contradicts,
  // with nodeSelector keys in the order the apiserver serializes them (sorted).
  const std::string a0 = "(pa + t0 + p0)";
  const std::string key =
      "cel.bind(bad, " + contradictions(a0) +
      ", cel.bind(nsBad, bad.filter(i, i.startsWith(\"l:\") && has(object.spec.nodeSelector) && "
      "i.substring(2) in object.spec.nodeSelector), size(nsBad) > 0 ? nsBad.min() : bad[0]))";
  const std::string podSide =
      "(pa.filter(r, r[0][0] == id).map(r, r[0][2]) + t0.filter(r, r[0][0] == id).map(r, "
      "\"node affinity term \" + string(ti + 1) + \" \" + r[0][2])).join(\" and \")";
  const std::string poolSide = "p0.filter(r, r[0][0] == id).map(r, r[0][2]).join(\" and \")";
  const std::string message =
      "variables.subject + \": its \" + " + cel::cut("pod", 240) +
      " + (pool == \"\" ? \" contradict each other\" : " +
      str(" contradicts pool " + first.name + " of class " + cls.name + ", which requires ") +
      " + pool) + (size(terms) > 1 ? \" (and each of its other node affinity terms contradicts "
      "too)\" : \"\") + " +
      str(cp.pools.size() > 1 ? " (and so do the class's other pools)" : "") +
      " + \": no node can satisfy both, so the pod would never schedule; change or remove the "
      "pod's \" + " +
      cel::cut("id.substring(2)", 80) + " + \" requirement, or use a class whose pools allow it\"";
  const std::string t0 = "size(terms) == 0 ? [] : terms[0]";
  // The first term with requirements is the first equal to it.
  const std::string ti = "size(terms) == 0 ? 0 : variables.placementTerms.indexOf(terms[0])";
  return "(" + placementConflictTest(p, cls) + " ? " +
         withPlacement("cel.bind(t0, " + t0 + ", cel.bind(ti, " + ti + ", cel.bind(p0, " +
                       poolRequirements(first) + ", cel.bind(id, " + key + ", cel.bind(pod, " +
                       podSide + ", cel.bind(pool, " + poolSide + ", [" + message + "]))))))") +
         " : [])";
}

}  // namespace gpua::native
