#include "native/resource_rules_cel.hpp"

#include <algorithm>

#include "engine/classify/class_placement.hpp"
#include "engine/core/json_util.hpp"
#include "engine/core/text.hpp"
#include "engine/pod/quantity.hpp"
#include "native/cel_text.hpp"
#include "native/pod_cel.hpp"
#include "policy/rule_ids.hpp"

namespace gpua::native {

namespace rules = policy::rules;
using cel::str;

namespace {

// ---- numbers: Kubernetes' quantity library has no multiplication and no formatting, so amounts
// are read in thousandths (MilliValue()) and printed as engine/pod/container_resources prints
// them.

// The thousandths of quantity `q` (a non-negative CEL quantity), rounded up as MilliValue():
// the float reading is corrected by exact comparisons.
std::string milli(const std::string& q) {
  return "cel.bind(f, int(" + q + ".asApproximateFloat() * 1000.0), quantity(string(f) + " +
         "\"m\").compareTo(" + q + ") >= 0 ? (quantity(string(f - 1) + \"m\").compareTo(" + q +
         ") >= 0 ? f - 1 : f) : f + 1)";
}

// The decimal digits of `n` (0 < n < 10^width) after a point, trailing zeros dropped.
std::string fraction(const std::string& n, int width) {
  std::string base = "1";
  base.append(static_cast<std::size_t>(width), '0');
  return "string(" + base + " + " + n + ").substring(1).find('^[0-9]*[1-9]')";
}

// toDecimalString() of `m` thousandths (an int, >= 0).
std::string decimalMilli(const std::string& m) {
  return "(string(" + m + " / 1000) + (" + m + " % 1000 == 0 ? \"\" : \".\" + " +
         fraction(m + " % 1000", 3) + "))";
}

// engine/pod/container_resources' suffix tables.
struct Suffix {
  const char* text;
  int64_t factor;
};
constexpr Suffix kBinary[] = {{"Ei", int64_t{1} << 60}, {"Pi", int64_t{1} << 50},
                              {"Ti", int64_t{1} << 40}, {"Gi", int64_t{1} << 30},
                              {"Mi", int64_t{1} << 20}, {"Ki", int64_t{1} << 10}};
constexpr Suffix kDecimal[] = {
    {"E", 1000000000000000000}, {"P", 1000000000000000}, {"T", 1000000000000},
    {"G", 1000000000},          {"M", 1000000},          {"k", 1000}};

// withSuffix(): the whole number `b` (> 0) with the largest suffix of `table` that divides it,
// when the smallest one does.
template <std::size_t N>
std::string withSuffix(const std::string& b, const Suffix (&table)[N], const std::string& none) {
  std::string out = none;
  for (auto s = std::rbegin(table); s != std::rend(table); ++s) {
    const std::string factor = std::to_string(s->factor);
    out = "(" + b + " % " + factor + " == 0 ? string(" + b + " / " + factor + ") + " +
          str(s->text) + " : " + out + ")";
  }
  return out;
}

template <std::size_t N>
bool endsWithAny(std::string_view text, const Suffix (&table)[N]) {
  for (const auto& s : table)
    if (text.ends_with(s.text)) return true;
  return false;
}

// showQuantity() of `m` thousandths of `resource`: memory in the largest binary unit that
// divides it, else the exact decimal.
std::string showMilli(const std::string& m, std::string_view resource) {
  if (resource != "memory") return decimalMilli(m);
  return "(" + m + " > 0 && " + m + " % 1000 == 0 ? cel.bind(b, " + m + " / 1000, " +
         withSuffix("b", kBinary, "string(b)") + ") : " + decimalMilli(m) + ")";
}

// showQuantity() of the quantity `q`.
std::string show(const std::string& q, std::string_view resource) {
  return "cel.bind(sm, " + milli(q) + ", " + showMilli("sm", resource) + ")";
}

// engine::text::number() of the double `v` (>= 0): "%.2f" (ties to even), trailing zeros and
// point dropped.
std::string number(const std::string& v) {
  return "cel.bind(nx, " + v +
         " * 100.0 + 0.5, cel.bind(ni, int(nx), cel.bind(n, double(ni) == nx && ni % 2 == 1 ? "
         "ni - 1 : ni, string(n / 100) + (n % 100 == 0 ? \"\" : \".\" + " +
         fraction("n % 100", 2) + "))))";
}

std::string milliOf(const policy::PolicyQuantity& q) {
  return std::to_string(q.value.milliValue().value_or(0));
}

// ---- one resource of one container as the engine's containerAmount() reads it. A rule binds a
// container's amounts once (bind()) and reads them by name: the apiserver caps an expression at
// 100000 code points.

struct Amounts {
  const policy::PolicySet& policy;
  const policy::ContainerRules& rules;
  bool writes;                     // the class writes its defaults (resourceRequests: mutate)
  std::vector<std::string> names;  // the resources the rules speak of, each bound as rqI / lmI

  Amounts(const policy::PolicySet& p, const policy::ContainerRules& rs, bool w)
      : policy(p), rules(rs), writes(w) {
    auto note = [&](const std::string& r) {
      if (std::find(names.begin(), names.end(), r) == names.end()) names.push_back(r);
    };
    for (const char* r : {"cpu", "memory"}) note(r);
    for (const auto& r : rs.requireRequests) note(r);
    for (const auto& r : rs.requireLimits) note(r);
    for (const auto& [r, q] : rs.maxPerGpu) note(r);
    for (const auto& [r, q] : rs.maxLimitRequestRatio) note(r);
    for (const auto& [r, q] : rs.maxPerContainer) note(r);
  }

  std::string index(std::string_view r) const {
    return std::to_string(std::find(names.begin(), names.end(), r) - names.begin());
  }
  // The bound names, inside bind(): the effective request and limit ([quantity] or []).
  std::string request(std::string_view r) const {
    return "am[" + std::to_string(2 * std::stoul(index(r))) + "]";
  }
  std::string limit(std::string_view r) const {
    return "am[" + std::to_string(2 * std::stoul(index(r)) + 1) + "]";
  }
  std::string requestWritten(std::string_view r) const { return "(" + str(r) + " in mm[0])"; }
  std::string limitWritten(std::string_view r) const { return "(" + str(r) + " in mm[1])"; }
  // Not validate-only, and the class writes defaults.
  std::string applied() const { return writes ? "variables.skip != \"validateOnly\"" : "false"; }
  // defaultRequest(): [quantity] or [] (gu: the container's GPU units).
  std::string defaultRequest(std::string_view r) const {
    if (!writes) return "[]";
    const std::string key(r);
    const auto flat = rules.defaultRequests.find(key);
    const std::string plain =
        flat == rules.defaultRequests.end() ? "[]" : "[quantity(" + str(flat->second.text) + ")]";
    const auto perGpu = rules.defaultRequestsPerGpu.find(key);
    if (perGpu == rules.defaultRequestsPerGpu.end()) return plain;
    return "(gu > 0 ? [quantity(string(" + milliOf(perGpu->second) + " * gu) + \"m\")] : " + plain +
           ")";
  }
  bool copiesLimit(std::string_view r) const {
    return std::find(rules.limitsFromRequests.begin(), rules.limitsFromRequests.end(), r) !=
           rules.limitsFromRequests.end();
  }
  // `body` with container `c`'s maps (mm: requests, limits), GPU units (gu) and amounts (am:
  // request and limit of each resource of `names`) bound, in as few bindings as the apiserver's
  // type check handles quickly.
  std::string bind(const std::string& c, const std::string& body) const {
    std::string amounts;
    for (const auto& r : names) {
      const std::string key = str(r);
      const std::string request = "(" + requestWritten(r) + " ? [quantity(mm[0][" + key +
                                  "])] : " + limitWritten(r) + " ? [quantity(mm[1][" + key +
                                  "])] : " + applied() + " ? " + defaultRequest(r) + " : [])";
      const std::string copied = copiesLimit(r) ? "(" + requestWritten(r) + " ? [quantity(mm[0][" +
                                                      key + "])] : " + defaultRequest(r) + ")"
                                                : "[]";
      const std::string limit = "(" + limitWritten(r) + " ? [quantity(mm[1][" + key +
                                "])] : " + applied() + " ? " + copied + " : [])";
      amounts += (amounts.empty() ? "" : ", ") + request + ", " + limit;
    }
    std::string out = "cel.bind(am, [" + amounts + "], " + body + ")";
    const bool units = writes && !rules.defaultRequestsPerGpu.empty();
    if (units) out = "cel.bind(gu, " + ContainerCel{policy}.units(c) + ", " + out + ")";
    return "cel.bind(mm, [(has(" + c + ".resources) && has(" + c + ".resources.requests) ? " + c +
           ".resources.requests : {}), " + ContainerCel{policy}.limits(c) + "], " + out + ")";
  }
};

// [q] with q > 0
std::string positive(const std::string& list) {
  return "(size(" + list + ") > 0 && " + list + "[0].isGreaterThan(quantity(\"0\")))";
}

// resourcesField(): "spec.containers[<i>].resources".
std::string field(const std::string& c, bool init) {
  const std::string list = init ? "variables.inits" : "variables.ctrs";
  return str(init ? "spec.initContainers[" : "spec.containers[") + " + string(" + list +
         ".map(x, x.name).indexOf(" + c + ".name)) + \"]\"";
}
std::string resourcesField(const std::string& c, bool init) {
  return field(c, init) + " + \".resources\"";
}

// The messages `msg(c, init)` of every container (app, then init) that are not empty.
std::string messages(const std::function<std::string(const std::string&, bool)>& msg) {
  return "(variables.ctrs.map(c, " + msg("c", false) + ") + variables.inits.map(c, " +
         msg("c", true) + ")).filter(m, m != \"\")";
}

// The first non-empty message of messages(msg), else "".
std::string firstMessage(const std::function<std::string(const std::string&, bool)>& msg) {
  return "cel.bind(fm, " + messages(msg) + ", size(fm) > 0 ? fm[0] : \"\")";
}

std::string head(const policy::PolicySet& p, const std::string& c, bool init) {
  return std::string(kSubject) + " + \" \" + " + ContainerCel{p}.label(c, init);
}

// `items` (each a CEL condition and a CEL string) as the CEL list of the strings whose
// condition holds.
std::string present(const std::vector<std::pair<std::string, std::string>>& items) {
  std::string out;
  for (const auto& [cond, text] : items)
    out += (out.empty() ? "" : " + ") + ("(" + cond + " ? [" + text + "] : [])");
  return out.empty() ? "[]" : "(" + out + ")";
}

// words(): "a", "a and b", "a, b and c".
std::string words(const std::vector<std::string>& items) {
  std::string out;
  for (std::size_t i = 0; i < items.size(); ++i)
    out += (i == 0 ? "" : i + 1 == items.size() ? " and " : ", ") + items[i];
  return out;
}

constexpr const char* kCpuMemory[] = {"cpu", "memory"};

// checkPresence(): requireRequests / requireLimits.
std::string presence(const Amounts& a, const policy::WorkloadClass& cls) {
  const auto& rs = a.rules;
  if (rs.requireRequests.empty() && rs.requireLimits.empty()) return "";
  std::string required;  // requirementWords()
  if (!rs.requireRequests.empty()) required = words(rs.requireRequests) + " requests";
  if (!rs.requireLimits.empty())
    required += (required.empty() ? "" : " and ") + words(rs.requireLimits) + " limits";
  return messages([&](const std::string& c, bool init) {
    std::vector<std::pair<std::string, std::string>> missing, fields;
    const std::string base = resourcesField(c, init);
    for (const auto& r : rs.requireRequests) {
      const std::string lacks = "!(" + a.requestWritten(r) + " || " + a.limitWritten(r) + " || (" +
                                a.applied() + " && size(" + a.defaultRequest(r) + ") > 0))";
      missing.emplace_back(lacks, str("no " + r + " request"));
      fields.emplace_back(lacks, base + " + " + str(".requests." + r));
    }
    for (const auto& r : rs.requireLimits) {
      const std::string copied = a.copiesLimit(r) ? "(" + a.requestWritten(r) + " || size(" +
                                                        a.defaultRequest(r) + ") > 0)"
                                                  : "false";
      const std::string lacks =
          "!(" + a.limitWritten(r) + " || (" + a.applied() + " && " + copied + "))";
      missing.emplace_back(lacks, str("no " + r + " limit"));
      fields.emplace_back(lacks, base + " + " + str(".limits." + r));
    }
    return a.bind(
        c, "cel.bind(ms, " + present(missing) + ", size(ms) == 0 ? \"\" : cel.bind(fs, " +
               present(fields) + ", " + head(a.policy, c, init) + " + \": \" + ms.join(\", \") + " +
               str("; " + engine::ruleOwner(cls) + " requires " + required +
                   " on every container of its ") +
               " + (variables.hasGpu ? \"GPU pods\" : \"pods\") + \": set \" + fs.join(\", \")))");
  });
}

// checkGuaranteed(): one finding, the first container without a positive limit, else the first
// whose request is not its limit in a resource whose sums differ.
std::string guaranteed(const Amounts& a, const policy::WorkloadClass& cls) {
  if (a.rules.qos != policy::QosClass::Guaranteed) return "";
  const std::string why =
      "; " + engine::ruleOwner(cls) +
      " runs Guaranteed pods (cpu and memory limits on every container, requests equal to "
      "them): set ";
  const std::string noLimit = firstMessage([&](const std::string& c, bool init) {
    return a.bind(c, "cel.bind(r, !" + positive(a.limit("cpu")) + " ? \"cpu\" : !" +
                         positive(a.limit("memory")) + " ? \"memory\" : \"\", r == \"\" ? \"\" : " +
                         head(a.policy, c, init) + " + \": no \" + r + \" limit\" + " + str(why) +
                         " + " + resourcesField(c, init) + " + \".limits.\" + r + " +
                         str(" (and the request equal to it)") + ")");
  });
  std::string unequal = "\"\"";
  int g = 2;
  for (auto r = std::rbegin(kCpuMemory); r != std::rend(kCpuMemory); ++r) {
    const std::string gv = "g" + std::to_string(--g);
    const std::string rq = a.request(*r), lm = a.limit(*r);
    // The sums of the positive requests and of the limits differ.
    const std::string differ =
        "(variables.ctrs + variables.inits).map(c, " +
        a.bind("c", "(" + positive(rq) + " ? " + milli(rq + "[0]") + " : 0) - (" + positive(lm) +
                        " ? " + milli(lm + "[0]") + " : 0)") +
        ").sum() != 0";
    const std::string first = firstMessage([&](const std::string& c, bool init) {
      return a.bind(
          c, "size(" + rq + ") > 0 && size(" + lm + ") > 0 && " + rq + "[0].compareTo(" + lm +
                 "[0]) == 0 ? \"\" : " + head(a.policy, c, init) + " + " +
                 str(": " + std::string(*r) + " request ") + " + (size(" + rq + ") > 0 ? " +
                 show(rq + "[0]", *r) + " : \"none\") + \" is not its limit \" + " +
                 show(lm + "[0]", *r) + " + " + str(why) + " + " + resourcesField(c, init) + " + " +
                 str(".requests." + std::string(*r) + " to ") + " + " + show(lm + "[0]", *r));
    });
    unequal = "cel.bind(" + gv + ", " + differ + " ? " + first + " : \"\", " + gv + " != \"\" ? " +
              gv + " : " + unequal + ")";
  }
  return "cel.bind(nl, " + noLimit + ", [nl != \"\" ? nl : " + unequal + "].filter(m, m != \"\"))";
}

// checkNotBestEffort(): some container sets a positive cpu or memory request or limit.
std::string notBestEffort(const Amounts& a, const policy::WorkloadClass& cls) {
  if (a.rules.qos != policy::QosClass::Burstable) return "";
  std::vector<std::string> any;
  for (const char* r : kCpuMemory) {
    any.push_back(positive(a.request(r)));
    any.push_back(positive(a.limit(r)));
  }
  const ContainerCel cc{a.policy};
  const std::string first = "cel.bind(ff, " + firstMessage([&](const std::string& c, bool init) {
                              return cc.wantsGpu(c) + " ? " + resourcesField(c, init) + " : \"\"";
                            }) +
                            ", ff != \"\" ? ff : " + resourcesField("variables.ctrs[0]", false) +
                            ")";
  return one("!(variables.ctrs + variables.inits).exists(c, " + a.bind("c", cel::anyOf(any)) + ")",
             std::string(kSubject) + " + " +
                 str(" is BestEffort (no container sets a cpu or memory request or limit), the "
                     "first pod evicted when its node runs short; " +
                     engine::ruleOwner(cls) + " needs at least Burstable: set ") +
                 " + " + first + " + \".requests cpu and memory\"");
}

// checkPerGpu(): the pod's request (PodRequestFold: app containers and sidecars summed, or the
// largest init container beside the sidecars before it) against the maximum times its GPUs.
std::string perGpu(const Amounts& a, const policy::WorkloadClass& cls) {
  if (a.rules.maxPerGpu.empty()) return "";
  const ContainerCel cc{a.policy};
  std::string out;
  for (const auto& [r, max] : a.rules.maxPerGpu) {
    const std::string rq = a.request(r);
    auto mc = [&](const std::string& c) {
      return a.bind(c, positive(rq) + " ? " + milli(rq + "[0]") + " : 0");
    };
    const std::string sidecar = "(has(x.restartPolicy) && x.restartPolicy == \"Always\")";
    const std::string at = "variables.inits.map(y, y.name).indexOf(";
    // Each container's thousandths, app then init (ms), and the inits' (mi).
    const std::string sum = "(ms.sum() - mi.sum() + variables.inits.filter(x, " + sidecar +
                            ").map(x, mi[" + at + "x.name)]).sum())";
    const std::string peaks =
        "variables.inits.map(c, (has(c.restartPolicy) && c.restartPolicy == \"Always\" ? 0 : mi[" +
        at + "c.name)]) + variables.inits.filter(x, " + sidecar + " && " + at + "x.name) <= " + at +
        "c.name)).map(x, mi[" + at + "x.name)]).sum())";
    const std::string maxMilli = milliOf(max);
    const std::string label =
        "(ms.indexOf(mx) < size(variables.ctrs) ? " +
        cc.label("variables.ctrs[ms.indexOf(mx)]", false) + " : " +
        cc.label("variables.inits[ms.indexOf(mx) - size(variables.ctrs)]", true) + ")";
    const std::string perGpuText =
        "(t % g == 0 ? " + showMilli("(t / g)", r) + " : \"about \" + " +
        (r == "memory" ? number("double(t) / 1000.0 / double(g) / 1073741824.0") + " + \"Gi\""
                       : number("double(t) / 1000.0 / double(g)")) +
        ")";
    const std::string msg =
        std::string(kSubject) + " + \" requests \" + " + showMilli("t", r) + " + " +
        str(" " + r + " for ") + " + string(g) + (g == 1 ? \" GPU\" : \" GPUs\") + \" (\" + " +
        perGpuText + " + " +
        str(" per GPU), above the " + max.text + " per GPU of " + engine::ruleOwner(cls) +
            ": request at most ") +
        " + cel.bind(al, " + maxMilli +
        " > 1152921504606846976 / g ? 1152921504606846976 : " + maxMilli + " * g, " +
        showMilli("al", r) + ") + " + str(" " + r + " in all (the most in ") + " + " + label +
        " + \": \" + " + showMilli("mx", r) + " + \"), or ask for more GPUs\"";
    const std::string list =
        "cel.bind(g, variables.total, g <= 0 ? [] : cel.bind(ms, (variables.ctrs + "
        "variables.inits).map(c, " +
        mc("c") + "), cel.bind(mi, variables.inits.map(c, " + mc("c") + "), cel.bind(ps, " + peaks +
        ", cel.bind(t, cel.bind(s, " + sum +
        ", size(ps) > 0 && ps.max() > s ? ps.max() : s), (t + g - 1) / g <= " + maxMilli +
        " ? [] : cel.bind(mx, ms.max(), [" + msg + "]))))))";
    out += (out.empty() ? "" : " + ") + list;
  }
  return "(" + out + ")";
}

// checkRatios(): per container that sets a limit, limit <= ratio x request (in thousandths).
std::string ratios(const Amounts& a, const policy::WorkloadClass& cls) {
  if (a.rules.maxLimitRequestRatio.empty()) return "";
  std::string out;
  for (const auto& [r, ratio] : a.rules.maxLimitRequestRatio) {
    const std::string rm = std::to_string(ratio.value.milliValue().value_or(1000));
    const std::string step = r == "memory" ? "(l >= 1048576000 ? 1048576000 : 1)" : "1";
    const std::string rq = a.request(r), lm = a.limit(r);
    const std::string list = messages([&](const std::string& c, bool init) {
      const std::string base = resourcesField(c, init);
      return a.bind(
          c, "size(" + rq + ") == 0 || size(" + lm + ") == 0 || " + rq +
                 "[0].isLessThan(quantity(\"0\")) || " + lm +
                 "[0].isLessThan(quantity(\"0\")) ? \"\" : cel.bind(l, " + milli(lm + "[0]") +
                 ", cel.bind(q, " + milli(rq + "[0]") + ", l * 1000 <= " + rm +
                 " * q ? \"\" : cel.bind(st, " + step + ", " + head(a.policy, c, init) + " + " +
                 str(": " + r + " limit ") + " + " + showMilli("l", r) +
                 " + (q == 0 ? \" with a request of 0\" : \" is \" + " +
                 number("double(l) / double(q)") + " + \"x the request \" + " + showMilli("q", r) +
                 ") + " +
                 str(", above the " + engine::toDecimalString(ratio.value) + "x " +
                     engine::ruleOwner(cls) + " allows: lower ") +
                 " + " + base + " + " + str(".limits." + r + " to ") + " + cel.bind(ml, " + rm +
                 " * q / 1000 / st * st, " + showMilli("ml", r) + ") + \" or raise \" + " + base +
                 " + " + str(".requests." + r + " to ") + " + cel.bind(mr, ((l * 1000 + " + rm +
                 " - 1) / " + rm + " + st - 1) / st * st, " + showMilli("mr", r) + "))))");
    });
    out += (out.empty() ? "" : " + ") + list;
  }
  return "(" + out + ")";
}

// checkPerContainer(): LimitRange's max per container, its limit and its request as admitted.
std::string perContainerMax(const Amounts& a, const policy::WorkloadClass& cls) {
  if (a.rules.maxPerContainer.empty()) return "";
  return messages([&](const std::string& c, bool init) {
    std::vector<std::pair<std::string, std::string>> over, fixes;
    for (const auto& [r, max] : a.rules.maxPerContainer) {
      const std::string rq = a.request(r), lm = a.limit(r);
      const std::string mx = "quantity(" + str(max.text) + ")";
      const std::string limitOver =
          "(size(" + lm + ") > 0 && " + mx + ".isLessThan(" + lm + "[0]))";
      const std::string requestOver =
          "(size(" + rq + ") > 0 && " + mx + ".isLessThan(" + rq + "[0]))";
      const std::string any = "(" + limitOver + " || " + requestOver + ")";
      over.emplace_back(any, str(r) + " + (" + limitOver + " ? \" limit \" + " +
                                 show(lm + "[0]", r) + " : \" request \" + " + show(rq + "[0]", r) +
                                 ") + " + str(" is above the " + max.text + " per container"));
      fixes.emplace_back(any, resourcesField(c, init) + " + (" + limitOver +
                                  " ? \".limits.\" : \".requests.\") + " +
                                  str(r + " to at most " + max.text));
    }
    return a.bind(
        c, "cel.bind(ov, " + present(over) + ", size(ov) == 0 ? \"\" : " + head(a.policy, c, init) +
               " + \": \" + ov.join(\", \") + " +
               str(" of " + engine::ruleOwner(cls) + ": lower ") + " + " + present(fixes) +
               ".join(\", \") + \", or split the work across containers or pods\")");
  });
}

// checkEnv(): requiredEnv on the containers that ask for a GPU; in a pod without GPUs, on every
// app container. The last entry of a name wins, as in the kubelet.
std::string requiredEnv(const Amounts& a, const policy::WorkloadClass& cls) {
  if (a.rules.requiredEnv.empty()) return "";
  const ContainerCel cc{a.policy};
  return messages([&](const std::string& c, bool init) {
    std::vector<std::pair<std::string, std::string>> wrong, fixes;
    std::string binds, closes;
    int i = 0;
    for (const auto& want : a.rules.requiredEnv) {
      const std::string e = "ev" + std::to_string(i++);
      binds += "cel.bind(" + e + ", has(" + c + ".env) ? " + c +
               ".env.filter(x, x.name == " + str(want.name) + ") : [], ";
      closes += ")";
      const std::string last = e + "[size(" + e + ") - 1]";
      const std::string ok =
          "(size(" + e + ") > 0" +
          (want.value ? " && has(" + last + ".value) && " + last + ".value == " + str(*want.value)
                      : std::string()) +
          ")";
      wrong.emplace_back("!" + ok, "size(" + e + ") == 0 ? " + str("no " + want.name) + " : !has(" +
                                       last + ".value) ? " + str(want.name + " from valueFrom") +
                                       " : " + str(want.name + "=\"") + " + " +
                                       cel::cut(last + ".value", 60) + " + \"\\\"\"");
      std::string fix = "{\"name\":" + engine::json::quoteString(want.name);
      if (want.value) fix.append(",\"value\":").append(engine::json::quoteString(*want.value));
      fixes.emplace_back("!" + ok, str(fix + "}"));
    }
    const std::string judged = init ? "(variables.hasGpu && " + cc.wantsGpu(c) + ")"
                                    : "(!variables.hasGpu || " + cc.wantsGpu(c) + ")";
    return "!" + judged + " ? \"\" : " + binds + "cel.bind(wr, " + present(wrong) +
           ", size(wr) == 0 ? \"\" : " + head(a.policy, c, init) +
           " + (variables.hasGpu ? \" asks for a GPU but sets \" : \" sets \") + wr.join(\", \") "
           "+ " +
           str("; " + engine::ruleOwner(cls) + " requires it on ") +
           " + (variables.hasGpu ? \"GPU containers\" : \"its containers\") + \": set in \" + " +
           field(c, init) + " + \".env: \" + " + present(fixes) +
           ".join(\", \") + \" (envFrom is not visible at admission)\")" + closes;
  });
}

}  // namespace

std::string quantityTextMilli(const std::string& m, std::string_view like) {
  const std::string plain =
      "(" + m + " % 1000 == 0 ? string(" + m + " / 1000) : string(" + m + ") + \"m\")";
  std::string out = plain;
  if (endsWithAny(like, kBinary))
    out = "(b % 1024 == 0 ? " + withSuffix("b", kBinary, "\"\"") + " : " + out + ")";
  else if (endsWithAny(like, kDecimal))
    out = "(b % 1000 == 0 ? " + withSuffix("b", kDecimal, "\"\"") + " : " + out + ")";
  if (out == plain) return plain;
  return "(" + m + " > 0 && " + m + " % 1000 == 0 ? cel.bind(b, " + m + " / 1000, " + out +
         ") : " + plain + ")";
}

std::vector<RuleList> containerResourceRules(const policy::PolicySet& p,
                                             const policy::WorkloadClass& cls) {
  const policy::ContainerRules& rs = cls.containers;
  if (rs.empty()) return {};
  const Amounts a(p, rs, cls.effects.resourceRequests == policy::EffectMode::Mutate);
  const std::string scope = scopeTest(rs.appliesTo, cls);
  if (scope == "false") return {};
  std::vector<RuleList> out;
  auto add = [&](std::string_view rule, std::string list) {
    if (list.empty()) return;
    out.push_back({rule, scope == "true" ? list : "(" + scope + " ? " + list + " : [])"});
  };
  add(rules::kContainerResourcesMissing, presence(a, cls));
  add(rules::kQosNotGuaranteed, guaranteed(a, cls));
  add(rules::kQosBestEffort, notBestEffort(a, cls));
  add(rules::kResourcesPerGpuExceeded, perGpu(a, cls));
  add(rules::kLimitRequestRatioExceeded, ratios(a, cls));
  add(rules::kContainerResourcesExceeded, perContainerMax(a, cls));
  add(rules::kRequiredEnvMissing, requiredEnv(a, cls));
  return out;
}

std::string allPodsJudged(const policy::PolicySet& p) {
  if (!p.allPodsJudged) return "false";
  const bool allowed = p.unclassifiedGpuPods.action == policy::UnclassifiedGpuPods::Action::Allow;
  return std::string("(variables.cls == \"\" && ") + (allowed ? "true" : "!variables.hasGpu") + ")";
}

}  // namespace gpua::native
