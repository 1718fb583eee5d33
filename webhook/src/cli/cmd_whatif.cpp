// gpu-admission whatif --pods PODS.json: runs every pod of a cluster snapshot
// (`kubectl get pods -A -o json`) through the policy as if it were created now, and prints what
// would be mutated, denied or left alone, per namespace and class.
//
// Exit status: 0 report printed, 2 usage error or bad input.
#include <cstdio>

#include "authoring/documents.hpp"
#include "authoring/policy_files.hpp"
#include "authoring/whatif.hpp"
#include "cli/cluster_files.hpp"
#include "cli/command_line.hpp"
#include "cli/command_registry.hpp"

namespace gpua::cli {
namespace {

using authoring::PodResult;
using authoring::Verdict;
using authoring::WhatifRow;
using rapidjson::Value;

void printTable(const std::vector<PodResult>& pods) {
  const auto rows = authoring::summarize(pods);
  const char* fmt = "%-24s %-20s %6s %8s %7s %7s %10s %6s\n";
  std::printf(fmt, "NAMESPACE", "CLASS", "PODS", "MUTATED", "DENIED", "WARNED", "UNCHANGED",
              "ERROR");
  WhatifRow total;
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
    v.AddMember("verdict", str(authoring::verdictName(p.verdict)), a);
    v.AddMember("patchOps", static_cast<uint64_t>(p.patchOps), a);
    v.AddMember("warnings", static_cast<uint64_t>(p.warnings), a);
    v.AddMember("brokeRules", p.brokeRules, a);
    v.AddMember("message", str(p.message), a);
    list.PushBack(v, a);
  }
  Value summary(rapidjson::kArrayType);
  for (const auto& [key, r] : authoring::summarize(pods)) {
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
  std::printf("%s\n", authoring::toJson(d, true).c_str());
}

struct WhatifOptions {
  authoring::WhatifInputs inputs;
  std::string namespaces, policies = "policies", usageFrom, nodesFrom, draFrom, output = "table";
};

int whatif(WhatifOptions& o) {
  const auto policy = authoring::loadPolicies(splitList(o.policies));
  if (!o.namespaces.empty()) o.inputs.namespacesFile = o.namespaces;
  o.inputs.usageFiles = splitList(o.usageFrom);
  o.inputs.nodesFiles = splitList(o.nodesFrom);
  o.inputs.draFiles = splitList(o.draFrom);
  const auto results = authoring::runWhatif(o.inputs, *policy, ClusterFileReader{});
  if (o.output == "json")
    printJson(results);
  else
    printTable(results);
  return 0;
}

int runWhatifCommand(int argc, char** argv) {
  CommandLine cl("whatif", "usage: gpu-admission whatif --pods PODS.json [options]",
                 "Runs every pod of `kubectl get pods -A -o json` through the policy as a CREATE "
                 "and prints\nwhat would be mutated, denied or left alone, per namespace and "
                 "class.\n",
                 "WARNED counts pods admitted although they break a rule (warn/audit rollout "
                 "mode): the\npods enforce mode would deny.\n"
                 "\n"
                 "exit status: 0 report printed, 2 usage error or bad input\n");
  WhatifOptions o;
  CLI::App& app = cl.app();
  cl.require(app.add_option("--pods", o.inputs.podsFile,
                            "the pod list (JSON or YAML; List, PodList or an array)")
                 ->type_name("FILE"));
  app.add_option("--namespaces", o.namespaces,
                 "`kubectl get ns -o json`, for namespace labels (rollout, quotas)")
      ->type_name("FILE");
  app.add_option("-p,--policies", o.policies, "policy files or directories (default: policies)")
      ->type_name("PATH,...");
  app.add_option("--usage-from", o.usageFrom,
                 "GPU usage for quota checks (default: an empty cluster, so each\n"
                 "pod is judged alone)")
      ->type_name("FILE,...");
  app.add_option("--dra-from", o.draFrom,
                 "DRA objects the pods' claims resolve against (spec.dra): `kubectl get\n"
                 "deviceclasses,resourceclaims,resourceclaimtemplates,resourceslices -A -o json`")
      ->type_name("FILE,...");
  app.add_option("--nodes-from", o.nodesFrom,
                 "`kubectl get nodes -o json`: runs the capacity checks too, with\n"
                 "the snapshot's pods as what is allocated and pending")
      ->type_name("FILE,...");
  app.add_option("-o,--output", o.output, "(default: table)")
      ->type_name("table|json")
      ->check(CLI::IsMember({"table", "json"}).description(""));
  return cl.run(argc, argv, [&o] { return whatif(o); });
}

const CommandRegistrar kWhatif{
    {"whatif", "what the policy would do to every pod of a cluster snapshot", &runWhatifCommand}};

}  // namespace
}  // namespace gpua::cli
