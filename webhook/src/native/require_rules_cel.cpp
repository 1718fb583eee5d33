#include "native/require_rules_cel.hpp"

#include "engine/classify/class_placement.hpp"
#include "engine/core/json_util.hpp"
#include "engine/mutate/mutation.hpp"
#include "engine/pod/gpu_request.hpp"
#include "native/cel_text.hpp"
#include "native/mutations_cel.hpp"
#include "native/pod_cel.hpp"
#include "native/resource_rules_cel.hpp"
#include "policy/rule_ids.hpp"

namespace gpua::native {

namespace rules = policy::rules;
using cel::str;
using policy::EffectMode;
using Pools = engine::PoolList;

namespace {

// report(): "<subject> <lacks>, which class X requires rather than adds: <fix>" (`lacks` and
// `fix` CEL strings).
std::string report(const policy::WorkloadClass& cls, const std::string& lacks,
                   const std::string& fix) {
  return std::string(kSubject) + " + \" \" + " + lacks + " + " +
         str(", which " + engine::ruleOwner(cls) + " requires rather than adds: ") + " + " + fix;
}

// poolNames(): the class's pools for which `relevant` holds.
template <typename F>
std::string poolNames(const Pools& pools, F relevant) {
  std::vector<std::string> names;
  for (const auto* p : pools)
    if (relevant(*p)) names.push_back(p->name);
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

// requireToleration(): the taints mutateTolerations would tolerate, as it writes them.
std::string toleration(const Pools& pools, const policy::WorkloadClass& cls) {
  const std::string needed = untoleratedTaints(
      pools, [](const policy::Taint& t) { return str(engine::tolerationJson(t)); });
  if (needed.empty()) return "";
  const std::string lacks =
      str("does not tolerate the taints of pool " +
          poolNames(pools, [](const policy::Pool& p) { return !p.taints.empty(); }));
  return "cel.bind(tols, has(object.spec.tolerations) ? object.spec.tolerations : [], "
         "cel.bind(tn, " +
         needed + ", size(tn) == 0 ? [] : [" +
         report(cls, lacks,
                "(has(object.spec.tolerations) ? tn.map(j, \"add to spec.tolerations: \" + "
                "j).join(\"; \") : \"set spec.tolerations: [\" + tn.join(\",\") + \"]\")") +
         "]))";
}

// requirePriorityClass(): where mutatePriority would write the class's priority class.
std::string priority(const policy::PolicySet& p, const policy::WorkloadClass& cls) {
  const std::string change = priorityChange(p, cls);
  if (change.empty()) return "";
  const std::string name = "object.spec.priorityClassName";
  const std::string wanted = *cls.priorityClassName;
  const std::string lacks = "(!has(" + name + ") || " + name +
                            " == \"\" ? \"names no priorityClassName\" : \"names "
                            "priorityClassName \\\"\" + " +
                            cel::cut(name, 80) + " + " + str("\" instead of " + wanted) + ")";
  return one(
      change,
      report(cls, lacks, str("set spec.priorityClassName: " + engine::json::quoteString(wanted))));
}

// requireRuntimeClass(): where mutateRuntimeClass would write the first pool's runtime class.
std::string runtimeClass(const Pools& pools, const policy::WorkloadClass& cls) {
  const std::string* name = poolRuntimeClass(pools);
  if (name == nullptr) return "";
  const std::string lacks =
      str("names no runtimeClassName for the GPU nodes of pool " +
          poolNames(pools, [](const policy::Pool& p) { return p.runtimeClassName.has_value(); }));
  return one(
      "!" + namesRuntimeClass(),
      report(cls, lacks, str("set spec.runtimeClassName: " + engine::json::quoteString(*name))));
}

// ---- node-placement-required: the placement mutatePlacement would write, as it writes it ----

// A requirement of the pod's (`e`, a CEL NodeSelectorRequirement) as the webhook writes it back:
// key, operator, values (label keys and values hold no character JSON escapes).
std::string requirementJson(const std::string& e) {
  return "\"{\\\"key\\\":\\\"\" + " + e + ".key + \"\\\",\\\"operator\\\":\\\"\" + " + e +
         ".operator + \"\\\"\" + (has(" + e + ".values) && size(" + e +
         ".values) > 0 ? \",\\\"values\\\":[\" + " + e +
         ".values.map(v, \"\\\"\" + v + \"\\\"\").join(\",\") + \"]\" : \"\") + \"}\"";
}

// writePoolExpressions(): a pool requirement as mutate_affinity writes it.
std::string poolRequirementJson(const policy::NodeRequirementRef& r) {
  std::string out = "{\"key\":" + engine::json::quoteString(r.key) +
                    ",\"operator\":" + engine::json::quoteString(policy::nodeOperatorName(r.op));
  if (!r.values.empty()) {
    out += ",\"values\":[";
    bool first = true;
    for (const auto& v : r.values) {
      if (!first) out += ',';
      first = false;
      out += engine::json::quoteString(v);
    }
    out += ']';
  }
  return str(out + "}");
}

// A term of the pod's (`t`) written back as it is ("" pool), or ANDed with `pool`
// (writeTermWithPool(): its members in order, the pool's requirements it does not imply
// appended to its matchExpressions, or a matchExpressions member added last).
std::string termJson(const std::string& t, const policy::Pool* pool) {
  const std::string added = pool ? "(" + unimplied(*pool, t, poolRequirementJson) + ")" : "[]";
  const std::string exprs = "(has(" + t + ".matchExpressions) ? " + t +
                            ".matchExpressions.map(e, " + requirementJson("e") + ") : [])";
  const std::string fields = "(has(" + t + ".matchFields) ? " + t + ".matchFields.map(e, " +
                             requirementJson("e") + ") : [])";
  return "\"{\" + ((has(" + t + ".matchExpressions) ? [\"\\\"matchExpressions\\\":[\" + (" + exprs +
         " + " + added + ").join(\",\") + \"]\"] : []) + (has(" + t +
         ".matchFields) ? [\"\\\"matchFields\\\":[\" + " + fields +
         ".join(\",\") + \"]\"] : []) + " +
         (pool ? "(has(" + t + ".matchExpressions) ? [] : [\"\\\"matchExpressions\\\":[\" + " +
                     added + ".join(\",\") + \"]\"])"
               : std::string("[]")) +
         ").join(\",\") + \"}\"";
}

// fixOf(mutateAffinity's patch) for `pools`: "" when the pod's terms already place it in one.
std::string affinityFix(const Pools& all) {
  Pools pools;
  for (const auto* pool : all)
    if (pool->selectsNodes()) pools.push_back(pool);
  if (pools.empty()) return "\"\"";
  std::string fresh, perTerm;
  for (const auto* pool : pools) {
    fresh += (fresh.empty() ? "" : ", ") +
             ("\"{\\\"matchExpressions\\\":[\" + (" + unimplied(*pool, "", poolRequirementJson) +
              ").join(\",\") + \"]}\"");
    perTerm += (perTerm.empty() ? "" : ", ") + termJson("t", pool);
  }
  const std::string a = "object.spec.affinity";
  const std::string na = a + ".nodeAffinity";
  const std::string req = na + ".requiredDuringSchedulingIgnoredDuringExecution";
  const std::string value = "\"[\" + (size(terms) == 0 ? [" + fresh + "] : terms.map(t, " +
                            satisfied(pools, "t") + " ? [" + termJson("t", nullptr) + "] : [" +
                            perTerm + "]).map(l, l.join(\",\"))).join(\",\") + \"]\"";
  const std::string changed = "(size(terms) == 0 ? !" + satisfied(pools, "") +
                              " : terms.exists(t, !" + satisfied(pools, "t") + "))";
  return "cel.bind(terms, " + requiredTerms() + ", !" + changed + " ? \"\" : cel.bind(tv, " +
         value + ", !has(" + a +
         ") ? \"set spec.affinity: "
         "{\\\"nodeAffinity\\\":{\\\"requiredDuringSchedulingIgnoredDuringExecution\\\":"
         "{\\\"nodeSelectorTerms\\\":\" + tv + \"}}}\" : !has(" +
         na +
         ") ? \"set spec.affinity.nodeAffinity: "
         "{\\\"requiredDuringSchedulingIgnoredDuringExecution\\\":"
         "{\\\"nodeSelectorTerms\\\":\" + tv + \"}}\" : !has(" +
         req +
         ") ? \"set spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution: "
         "{\\\"nodeSelectorTerms\\\":\" + tv + \"}\" : \"set "
         "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution."
         "nodeSelectorTerms: \" + tv))";
}

// fixOf(mutateNodeSelector's patch): the pool's labels, by placement.onConflict.
std::string nodeSelectorFix(const Pools& pools, policy::Placement::OnConflict onConflict) {
  const policy::Pool* pool = nullptr;
  for (const auto* p : pools)
    if (pool == nullptr && !p->nodeSelector.empty()) pool = p;
  if (pool == nullptr) return "\"\"";
  using OnConflict = policy::Placement::OnConflict;
  std::string adds, replaces, conflict = "false";
  for (const auto& [k, v] : pool->nodeSelector) {
    const std::string key = str(k), value = str(v);
    adds +=
        (adds.empty() ? "" : " + ") + ("(" + key + " in ns ? [] : [[" + key + ", " + value + "]])");
    conflict += " || (" + key + " in ns && ns[" + key + "] != " + value + ")";
    if (onConflict == OnConflict::Overwrite)
      replaces +=
          (replaces.empty() ? "" : " + ") +
          ("(" + key + " in ns && ns[" + key + "] != " + value + " ? [" +
           str("set spec.nodeSelector." + k + ": " + engine::json::quoteString(v)) + "] : [])");
  }
  if (replaces.empty()) replaces = "[]";
  const std::string ops =
      "cel.bind(ad, " + adds + ", " + replaces +
      " + (!has(object.spec.nodeSelector) && size(ad) > 0 ? [\"set spec.nodeSelector: {\" + "
      "ad.map(x, \"\\\"\" + x[0] + \"\\\":\\\"\" + x[1] + \"\\\"\").join(\",\") + \"}\"] : "
      "ad.map(x, \"set "
      "spec.nodeSelector.\" + x[0] + \": \\\"\" + x[1] + \"\\\"\"))).join(\"; \")";
  return "cel.bind(ns, " + nodeSelector() + ", " +
         (onConflict == OnConflict::Deny ? "(" + conflict + ") ? \"\" : " : std::string()) + ops +
         ")";
}

// nodeSelectorAlternative(): when one pool has labels, them in spec.nodeSelector (and its
// matchExpressions in node affinity) instead.
std::string nodeSelectorAlternative(const Pools& pools) {
  const policy::Pool* pool = nullptr;
  int placing = 0;
  for (const auto* p : pools)
    if (!p->nodeSelector.empty()) {
      pool = p;
      ++placing;
    }
  if (placing != 1) return "\"\"";
  std::string holds = "true", labels = "{";
  for (const auto& [k, v] : pool->nodeSelector) {
    holds += " && " + str(k) + " in ns && ns[" + str(k) + "] == " + str(v);
    if (labels.size() > 1) labels += ',';
    labels += engine::json::quoteString(k) + ":" + engine::json::quoteString(v);
  }
  std::string affinity = "\"\"";
  policy::Pool expressions = *pool;  // expressionsOnly()
  expressions.nodeSelector.clear();
  if (!pool->matchExpressions.empty()) affinity = affinityFix({&expressions});
  return "cel.bind(ns, " + nodeSelector() + ", " + holds + " ? \"\" : cel.bind(af, " + affinity +
         ", " + str(" (or add to spec.nodeSelector: " + labels + "}") +
         " + (af == \"\" ? \"\" : \" and \" + af) + \")\"))";
}

std::string placement(const Pools& pools, const policy::WorkloadClass& cls) {
  const bool bySelector = cls.placement.via == policy::Placement::Via::NodeSelector;
  const std::string fix = bySelector
                              ? nodeSelectorFix(pools, cls.placement.onConflict)
                              : "cel.bind(ns, " + nodeSelector() + ", " + affinityFix(pools) + ")";
  if (fix == "\"\"") return "";
  return "cel.bind(pf, " + fix + ", pf == \"\" ? [] : [" + kSubject + " + " +
         str(" does not select the nodes of pool " +
             poolNames(pools, [](const policy::Pool& p) { return p.selectsNodes(); }) +
             ", which class " + cls.name + " requires rather than adds: ") +
         " + pf + " + nodeSelectorAlternative(pools) + "])";
}

// The GPU keys of map `m` for which `also(k)` holds, in byte order (as the apiserver writes a
// map, and so as the webhook reads it), up to 8 of them.
std::string sortedGpuKeys(const ContainerCel& cc, const std::string& m, const std::string& also) {
  return "cel.bind(ks, " + m + ".filter(k, " + cc.isGpu("k") + " && " + also +
         "), [0, 1, 2, 3, 4, 5, 6, 7].filter(i, i < size(ks)).map(i, ks.filter(k, "
         "size(ks.filter(j, j < k)) == i)[0]))";
}

// A whole quantity >= 0 (engine parseWholeQuantity, as the apiserver stores a pod).
std::string whole(const std::string& q) {
  return "(quantity(" + q + ").isInteger() && !quantity(" + q + ").isLessThan(quantity(\"0\")))";
}

// requireResourceName(): per container, the GPU entries to write as limits (renamed to the
// class's resource, or requests without limits).
std::string resourceName(const policy::PolicySet& p, const policy::WorkloadClass& cls) {
  const ContainerCel cc{p};
  const bool renames = !cls.resolvedResource.empty() && cls.resolvedResource != engine::kWholeGpu;
  // gpuRewriteTarget(): the class's resource unless the pod picked a MIG profile itself.
  const std::string target =
      renames ? "(variables.requestsMig ? \"\" : " + str(cls.resolvedResource) + ")" : "\"\"";
  auto msg = [&](const std::string& c, bool init) {
    const std::string req = "(has(" + c + ".resources) && has(" + c + ".resources.requests) ? " +
                            c + ".resources.requests : {})";
    const std::string lim = cc.limits(c);
    const std::string field =
        str(init ? "spec.initContainers[" : "spec.containers[") + " + string(" +
        (init ? std::string("variables.inits") : std::string("variables.ctrs")) +
        ".map(x, x.name).indexOf(" + c + ".name)) + \"].resources\"";
    // Each entry: [name to write, units, renamed from ("" = not renamed)].
    const std::string entries =
        "(" + sortedGpuKeys(cc, "rq", "true") + " + " + sortedGpuKeys(cc, "lm", "!(k in rq)") +
        ").filter(k, (!(k in rq) || " + whole("rq[k]") + ") && (!(k in lm) || " + whole("lm[k]") +
        ")).map(k, [string(k), string(k in lm ? quantity(lm[k]).asInteger() : "
        "quantity(rq[k]).asInteger()), (k in rq && quantity(rq[k]).isGreaterThan(quantity(\"0\"))) "
        "|| (k in lm && quantity(lm[k]).isGreaterThan(quantity(\"0\"))) ? \"w\" : "
        "\"\"]).filter(e, e[2] != \"\").map(e, [e[0], e[1], tg != \"\" && e[0] == " +
        str(engine::kWholeGpu) + " ? \"r\" : \"\"]).filter(e, e[2] != \"\" || !(e[0] in lm))";
    return "cel.bind(rq, " + req + ", cel.bind(lm, " + lim + ", cel.bind(es, " + entries +
           ", size(es) == 0 ? \"\" : cel.bind(wanted, \"{\" + es.map(e, \"\\\"\" + (e[2] != \"\" ? "
           "tg : "
           "e[0]) + \"\\\":\" + e[1]).join(\", \") + \"}\", cel.bind(wrong, es.filter(e, "
           "e[2] != \"\").map(e, e[0]).join(\", \"), " +
           kSubject + " + \" \" + " + cc.label(c, init) + " + \" \" + (wrong != \"\" ? " +
           "\"asks for \" + wrong + " + str(" but class " + cls.name + " runs on ") + " + tg + " +
           str(", which it requires rather than rewrites: write ") + " + " + field +
           " + \".limits \" + wanted + (has(" + c + ".resources) && has(" + c +
           ".resources.requests) ? \" (and the same requests, or none)\" : \"\") + \" instead "
           "of \" + wrong : " +
           str("sets GPU requests without limits, and class " + cls.name +
               " requires limits rather than adds them: write ") +
           " + " + field + " + \".limits \" + wanted))))))";
  };
  return "cel.bind(tg, " + target + ", (variables.ctrs.map(c, " + msg("c", false) +
         ") + variables.inits.map(c, " + msg("c", true) + ")).filter(m, m != \"\"))";
}

// requireResourceRequests(): the container defaults mutateResourceRequests would write, as it
// writes them (fixOf: "set <field>: <json>").
std::string resourceRequests(const policy::PolicySet& p, const policy::WorkloadClass& cls) {
  const policy::ContainerRules& rs = cls.containers;
  if (!rs.writesDefaults()) return "";
  const ContainerCel cc{p};
  // forEachWrittenResource(): the per-GPU defaults, the fixed ones, the copied limits.
  std::vector<std::string> written;
  for (const auto& [r, q] : rs.defaultRequestsPerGpu) written.push_back(r);
  for (const auto& [r, q] : rs.defaultRequests)
    if (!rs.defaultRequestsPerGpu.contains(r)) written.push_back(r);
  for (const auto& r : rs.limitsFromRequests)
    if (!rs.defaultRequestsPerGpu.contains(r) && !rs.defaultRequests.contains(r))
      written.push_back(r);
  auto msg = [&](const std::string& c, bool init) {
    std::string requests, limits;
    for (const auto& r : written) {
      const std::string key = str(r);
      // defaultRequest(): JSON, or "" when none applies.
      const auto flat = rs.defaultRequests.find(r);
      const std::string plain = flat == rs.defaultRequests.end()
                                    ? "\"\""
                                    : str(engine::json::quoteString(flat->second.text));
      std::string value = plain;
      if (const auto perGpu = rs.defaultRequestsPerGpu.find(r);
          perGpu != rs.defaultRequestsPerGpu.end())
        value = "cel.bind(u, " + cc.units(c) + ", u > 0 ? cel.bind(dm, " +
                std::to_string(perGpu->second.value.milliValue().value_or(0)) +
                " * u, \"\\\"\" + " + quantityTextMilli("dm", perGpu->second.text) +
                " + \"\\\"\") : " + plain + ")";
      const std::string request = "(" + key + " in rq || " + key + " in lm ? \"\" : " + value + ")";
      requests += (requests.empty() ? "" : ", ") + ("[" + key + ", " + request + "]");
      const bool copies = std::find(rs.limitsFromRequests.begin(), rs.limitsFromRequests.end(),
                                    r) != rs.limitsFromRequests.end();
      if (copies)
        limits += (limits.empty() ? "" : ", ") +
                  ("[" + key + ", " + key + " in lm ? \"\" : " + key + " in rq ? \"\\\"\" + rq[" +
                   key + "] + \"\\\"\" : " + request + "]");
    }
    const std::string base =
        str(init ? "spec.initContainers[" : "spec.containers[") + " + string(" +
        (init ? std::string("variables.inits") : std::string("variables.ctrs")) +
        ".map(x, x.name).indexOf(" + c + ".name)) + \"].resources\"";
    auto object = [](const std::string& adds) {
      return "\"{\" + " + adds + ".map(x, \"\\\"\" + x[0] + \"\\\":\" + x[1]).join(\",\") + \"}\"";
    };
    const std::string hasRes = "has(" + c + ".resources)";
    const std::string hasReq = "(" + hasRes + " && has(" + c + ".resources.requests))";
    const std::string hasLim = "(" + hasRes + " && has(" + c + ".resources.limits))";
    const std::string req = "(has(" + c + ".resources) && has(" + c + ".resources.requests) ? " +
                            c + ".resources.requests : {})";
    return "cel.bind(rq, " + req + ", cel.bind(lm, " + cc.limits(c) + ", cel.bind(ra, [" +
           requests + "].filter(x, x[1] != \"\"), cel.bind(la, [" + (limits.empty() ? "" : limits) +
           "].filter(x, x[1] != \"\"), size(ra) == 0 && size(la) == 0 ? \"\" : "
           "cel.bind(wr, !" +
           hasReq + " && size(ra) > 0 ? " + object("ra") + " : \"\", cel.bind(wl, !" + hasLim +
           " && size(la) > 0 ? " + object("la") + " : \"\", ((" + hasReq +
           " ? ra.map(x, \"set \" + " + base +
           " + \".requests.\" + x[0] + \": \" + x[1]) : []) "
           "+ (" +
           hasLim + " ? la.map(x, \"set \" + " + base +
           " + \".limits.\" + x[0] + \": \" + x[1]) : []) + (!" + hasRes + " ? [\"set \" + " +
           base +
           " + \": {\" + (wr != \"\" ? \"\\\"requests\\\":\" + wr : \"\") + (wl != \"\" ? (wr != "
           "\"\" ? \",\" : \"\") + \"\\\"limits\\\":\" + wl : \"\") + \"}\"] : (wr != \"\" ? "
           "[\"set \" + " +
           base + " + \".requests: \" + wr] : []) + (wl != \"\" ? [\"set \" + " + base +
           " + \".limits: \" + wl] : []))).join(\"; \")))))))";
  };
  return "cel.bind(fx, (variables.ctrs.map(c, " + msg("c", false) + ") + variables.inits.map(c, " +
         msg("c", true) + ")).filter(m, m != \"\"), size(fx) == 0 ? [] : [" +
         report(cls, str("has containers without the default requests or limits"),
                "fx.join(\"; \")") +
         "])";
}

}  // namespace

std::vector<RuleList> requiredContainerDefaults(const policy::PolicySet& p,
                                                const policy::WorkloadClass& cls) {
  if (cls.effects.resourceRequests != EffectMode::Require) return {};
  const std::string scope = scopeTest(cls.containers.appliesTo, cls);
  const std::string list = scope == "false" ? "" : resourceRequests(p, cls);
  if (list.empty()) return {};
  return {{rules::kResourceRequestsRequired,
           scope == "true" ? list : "(" + scope + " ? " + list + " : [])"}};
}

std::vector<RuleList> requiredEffectRules(const policy::PolicySet& p,
                                          const policy::WorkloadClass& cls) {
  std::vector<RuleList> out = requiredContainerDefaults(p, cls);
  // The other effects belong to the class's GPUs.
  const policy::Effects& fx = cls.effects;
  const Pools pools = classPools(cls, p);
  auto add = [&](std::string_view rule, bool required, const std::function<std::string()>& list) {
    if (!required) return;
    const std::string l = list();
    if (!l.empty()) out.push_back({rule, "(variables.hasGpu ? " + l + " : [])"});
  };
  add(rules::kResourceNameRequired, fx.resourceName == EffectMode::Require,
      [&] { return resourceName(p, cls); });
  add(rules::kNodePlacementRequired, fx.nodePlacement == EffectMode::Require,
      [&] { return placement(pools, cls); });
  add(rules::kTolerationRequired, fx.toleration == EffectMode::Require,
      [&] { return toleration(pools, cls); });
  add(rules::kPriorityClassRequired, fx.priorityClass == EffectMode::Require,
      [&] { return priority(p, cls); });
  add(rules::kRuntimeClassRequired, fx.runtimeClass == EffectMode::Require,
      [&] { return runtimeClass(pools, cls); });
  return out;
}

}  // namespace gpua::native
