// gpu-admission whatif --pods PODS.json: runs every pod of a cluster snapshot
// (`kubectl get pods -A -o json`) through the policy as if it were created now, and prints what
// would be mutated, denied or left alone, per namespace and class.
//
// Exit status: 0 report printed, 2 usage error or bad input.
#include <cstdio>
#include <map>
#include <tuple>

#include "cli/command_registry.hpp"
#include "cli/support_args.hpp"
#include "cli/support_command.hpp"
#include "cli/support_context.hpp"
#include "cli/support_document.hpp"
#include "cli/support_review.hpp"
#include "cli/support_split.hpp"

namespace gpua::cli {
namespace {

using rapidjson::Value;

constexpr const char* kUsage =
    "usage: gpu-admission whatif --pods PODS.json [options]\n"
    "\n"
    "Runs every pod of `kubectl get pods -A -o json` through the policy as a CREATE and prints\n"
    "what would be mutated, denied or left alone, per namespace and class.\n"
    "\n"
    "      --pods FILE            the pod list (JSON or YAML; List, PodList or an array)\n"
    "      --namespaces FILE      `kubectl get ns -o json`, for namespace labels (rollout, "
    "quotas)\n"
    "  -p, --policies PATH,...    policy files or directories (default: policies)\n"
    "      --usage-from FILE,...  GPU usage for quota checks (default: an empty cluster, so each\n"
    "                             pod is judged alone)\n"
    "      --nodes-from FILE,...  `kubectl get nodes -o json`: runs the capacity checks too, with\n"
    "                             the snapshot's pods as what is allocated and pending\n"
    "  -o, --output table|json    (default: table)\n"
    "\n"
    "WARNED counts pods admitted although they break a rule (warn/audit rollout mode): the\n"
    "pods enforce mode would deny.\n"
    "\n"
    "exit status: 0 report printed, 2 usage error or bad input\n";

enum class Verdict { Mutated, Denied, Unchanged, Error };

struct PodResult {
  std::string namespaceName, name, group, message;
  Verdict verdict = Verdict::Unchanged;
  std::size_t warnings = 0, patchOps = 0;
  bool brokeRules = false;  // admitted although a rule was broken (warn/audit mode)
  std::string outcome, className;
};

struct Row {
  int pods = 0, mutated = 0, denied = 0, warned = 0, unchanged = 0, errors = 0;
};

const char* verdictName(Verdict v) {
  switch (v) {
    case Verdict::Mutated:
      return "mutated";
    case Verdict::Denied:
      return "denied";
    case Verdict::Unchanged:
      return "unchanged";
    case Verdict::Error:
      return "error";
  }
  return "error";
}

// The class name, or the outcome in parentheses for pods no class took: "(NoGpu)", "(Exempt)".
std::string groupOf(const ReviewReport& r) {
  if (!r.decision) return "(unknown)";
  if (!r.decision->className.empty()) return r.decision->className;
  return std::string("(") + engine::outcomeName(r.decision->outcome) + ")";
}

const Value& itemsOf(const Value& list, const std::string& file) {
  if (list.IsArray()) return list;
  if (list.IsObject() && list.HasMember("items") && list["items"].IsArray()) return list["items"];
  throw InputError(file + ": not a pod list (expected {\"items\": [...]} or an array)");
}

// Live lists carry kind on each item, but `kubectl get -o json` of a single kind may not.
void defaultKind(rapidjson::Document& pod) {
  if (!pod.IsObject()) return;
  auto& a = pod.GetAllocator();
  if (!pod.HasMember("apiVersion")) pod.AddMember("apiVersion", "v1", a);
  if (!pod.HasMember("kind")) pod.AddMember("kind", "Pod", a);
}

PodResult reviewOne(const Value& item, const policy::PolicySet& policy,
                    const engine::UsageSnapshot& usage, const engine::SupplySnapshot& supply) {
  rapidjson::Document pod;
  pod.CopyFrom(item, pod.GetAllocator());
  defaultKind(pod);
  PodResult res;
  if (pod.IsObject() && pod.HasMember("metadata") && pod["metadata"].IsObject()) {
    const Value& m = pod["metadata"];
    if (m.HasMember("namespace") && m["namespace"].IsString())
      res.namespaceName = m["namespace"].GetString();
    if (m.HasMember("name") && m["name"].IsString()) res.name = m["name"].GetString();
  }
  try {
    ReviewRequest req;
    req.object = &pod;
    const ReviewReport r = runReview(req, policy, usage, supply);
    if (res.namespaceName.empty()) res.namespaceName = r.namespaceName;
    if (res.name.empty()) res.name = r.displayName;
    res.group = groupOf(r);
    res.outcome = r.decision ? engine::outcomeName(r.decision->outcome) : "";
    res.className = r.decision ? r.decision->className : "";
    res.warnings = r.warnings.size();
    res.brokeRules = r.allowed && r.decision && !r.decision->violations.empty();
    res.patchOps = r.patch.size();
    res.verdict = !r.allowed        ? Verdict::Denied
                  : r.patch.empty() ? Verdict::Unchanged
                                    : Verdict::Mutated;
    res.message = !r.allowed       ? r.statusMessage
                  : res.brokeRules ? r.decision->violations.front().message
                                   : "";
  } catch (const ReviewError& e) {
    res.group = "(error)";
    res.verdict = Verdict::Error;
    res.message = e.what();
  }
  return res;
}

std::map<std::pair<std::string, std::string>, Row> summarize(const std::vector<PodResult>& pods) {
  std::map<std::pair<std::string, std::string>, Row> rows;
  for (const auto& p : pods) {
    Row& row = rows[{p.namespaceName, p.group}];
    ++row.pods;
    row.warned += p.brokeRules ? 1 : 0;
    switch (p.verdict) {
      case Verdict::Mutated:
        ++row.mutated;
        break;
      case Verdict::Denied:
        ++row.denied;
        break;
      case Verdict::Unchanged:
        ++row.unchanged;
        break;
      case Verdict::Error:
        ++row.errors;
        break;
    }
  }
  return rows;
}

void printTable(const std::vector<PodResult>& pods) {
  const auto rows = summarize(pods);
  const char* fmt = "%-24s %-20s %6s %8s %7s %7s %10s %6s\n";
  std::printf(fmt, "NAMESPACE", "CLASS", "PODS", "MUTATED", "DENIED", "WARNED", "UNCHANGED",
              "ERROR");
  Row total;
  auto n = [](int v) { return std::to_string(v); };
  for (const auto& [key, r] : rows) {
    std::printf(fmt, key.first.c_str(), key.second.c_str(), n(r.pods).c_str(), n(r.mutated).c_str(),
                n(r.denied).c_str(), n(r.warned).c_str(), n(r.unchanged).c_str(),
                n(r.errors).c_str());
    total.pods += r.pods;
    total.mutated += r.mutated;
    total.denied += r.denied;
    total.warned += r.warned;
    total.unchanged += r.unchanged;
    total.errors += r.errors;
  }
  std::printf(fmt, "TOTAL", "", n(total.pods).c_str(), n(total.mutated).c_str(),
              n(total.denied).c_str(), n(total.warned).c_str(), n(total.unchanged).c_str(),
              n(total.errors).c_str());
  // The pods behind the numbers: what enforce mode would refuse, and why.
  for (const auto& p : pods) {
    const char* what = p.verdict == Verdict::Denied  ? "denied"
                       : p.verdict == Verdict::Error ? "error"
                       : p.brokeRules                ? "warned"
                                                     : nullptr;
    if (what)
      std::printf("%s %s/%s: %s\n", what, p.namespaceName.c_str(), p.name.c_str(),
                  p.message.c_str());
  }
}

void printJson(const std::vector<PodResult>& pods) {
  rapidjson::Document d(rapidjson::kObjectType);
  auto& a = d.GetAllocator();
  auto str = [&](const std::string& s) { return Value(s.c_str(), a); };
  Value list(rapidjson::kArrayType);
  for (const auto& p : pods) {
    Value v(rapidjson::kObjectType);
    v.AddMember("namespace", str(p.namespaceName), a);
    v.AddMember("name", str(p.name), a);
    v.AddMember("outcome", str(p.outcome), a);
    v.AddMember("class", str(p.className), a);
    v.AddMember("verdict", str(verdictName(p.verdict)), a);
    v.AddMember("patchOps", static_cast<uint64_t>(p.patchOps), a);
    v.AddMember("warnings", static_cast<uint64_t>(p.warnings), a);
    v.AddMember("brokeRules", p.brokeRules, a);
    v.AddMember("message", str(p.message), a);
    list.PushBack(v, a);
  }
  Value summary(rapidjson::kArrayType);
  for (const auto& [key, r] : summarize(pods)) {
    Value v(rapidjson::kObjectType);
    v.AddMember("namespace", str(key.first), a);
    v.AddMember("class", str(key.second), a);
    v.AddMember("pods", r.pods, a);
    v.AddMember("mutated", r.mutated, a);
    v.AddMember("denied", r.denied, a);
    v.AddMember("warned", r.warned, a);
    v.AddMember("unchanged", r.unchanged, a);
    v.AddMember("errors", r.errors, a);
    summary.PushBack(v, a);
  }
  d.AddMember("pods", list, a);
  d.AddMember("summary", summary, a);
  std::printf("%s\n", toJson(d, true).c_str());
}

int whatif(const Args& args) {
  const auto podsFile = args.get("--pods");
  if (!podsFile) throw UsageError("--pods FILE is required");
  const std::string output = args.getOr("--output", "table");
  if (output != "table" && output != "json") throw UsageError("--output must be table or json");
  const auto policy = loadPolicies(splitList(args.getOr("--policies", "policies")));
  const rapidjson::Document list = readDocumentFile(*podsFile);
  const Value& items = itemsOf(list, *podsFile);

  std::vector<std::string> usageFiles;
  if (auto ns = args.get("--namespaces")) usageFiles.push_back(*ns);
  if (auto u = args.get("--usage-from"))
    for (auto& f : splitList(*u)) usageFiles.push_back(f);
  const engine::UsageSnapshot usage =
      usageFiles.empty() ? emptyUsage() : usageFromFiles(usageFiles, *policy);
  // Namespace labels only (no usage) when just --namespaces is given.
  engine::UsageSnapshot effective = usage;
  if (!args.has("--usage-from")) effective.namespaces.clear();

  const engine::SupplySnapshot supply =
      args.has("--nodes-from")
          ? supplyFromFiles(splitList(*args.get("--nodes-from")), {*podsFile}, *policy)
          : engine::SupplySnapshot{};
  std::vector<PodResult> results;
  for (const auto& item : items.GetArray()) {
    if (item.IsObject() && item.HasMember("kind") && item["kind"] == "Namespace") continue;
    results.push_back(reviewOne(item, *policy, effective, supply));
  }
  if (output == "json")
    printJson(results);
  else
    printTable(results);
  return 0;
}

int runWhatifCommand(int argc, char** argv) {
  Args args({"--pods", "--namespaces", "--policies", "--usage-from", "--nodes-from", "--output"},
            {"--help"}, {{"-p", "--policies"}, {"-o", "--output"}, {"-h", "--help"}});
  return runParsedCommand("whatif", kUsage, args, argc, argv, &whatif);
}

const CommandRegistrar kWhatif{
    {"whatif", "what the policy would do to every pod of a cluster snapshot", &runWhatifCommand}};

}  // namespace
}  // namespace gpua::cli
