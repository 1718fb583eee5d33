// gpu-admission review -f POD.yaml: what the webhook would answer for one object, through the
// same AdmissionReview code path the API server's request takes.
//
// Exit status: 0 admitted, 1 denied, 2 bad input or usage error.
#include <cstdio>

#include "authoring/documents.hpp"
#include "authoring/policy_files.hpp"
#include "authoring/review_output.hpp"
#include "authoring/review_roundtrip.hpp"
#include "cli/cluster_files.hpp"
#include "cli/command_line.hpp"
#include "cli/command_registry.hpp"

namespace gpua::cli {
namespace {

using authoring::InputError;
using authoring::ReviewError;
using authoring::ReviewReport;
using authoring::ReviewRequest;

struct ReviewOptions {
  std::string file, namespaceName, labels, policies = "policies", usageFrom, nodesFrom, draFrom;
  std::string operation = "CREATE", output = "text";
  bool usageUnavailable = false;
};

// The cluster the object is reviewed in: usage unknown, from files or empty, with the labels
// of the namespace the request goes to.
engine::UsageSnapshot usageOf(const ReviewOptions& o, const rapidjson::Value& object,
                              const policy::PolicySet& policy, const ClusterFileReader& files) {
  engine::UsageSnapshot usage = o.usageUnavailable
                                    ? authoring::unavailableUsage("--usage-unavailable given")
                                : !o.usageFrom.empty() ? files.usage(splitList(o.usageFrom), policy)
                                                       : authoring::emptyUsage();
  if (!o.draFrom.empty()) files.addDra(splitList(o.draFrom), policy, usage);
  // Labels belong to the namespace the request ends up in; resolve it first.
  if (!o.labels.empty())
    usage.namespaceLabels[authoring::requestNamespace(object, o.namespaceName)] =
        parseLabelList(o.labels);
  return usage;
}

int review(const ReviewOptions& o) {
  const auto policy = authoring::loadPolicies(splitList(o.policies));
  const rapidjson::Document object = authoring::readDocumentFile(o.file);
  const ClusterFileReader files;
  const engine::UsageSnapshot usage = usageOf(o, object, *policy, files);
  const engine::SupplySnapshot supply =
      o.nodesFrom.empty()
          ? engine::SupplySnapshot{}
          : files.supply(splitList(o.nodesFrom), splitList(o.usageFrom), *policy, usage.dra.get());
  ReviewRequest req;
  req.object = &object;
  req.namespaceName = o.namespaceName;
  req.operation = o.operation;
  ReviewReport report;
  try {
    report = authoring::runReview(req, *policy, usage, supply);
  } catch (const ReviewError& e) {
    throw InputError(o.file + ": " + e.what());
  }
  if (o.output == "json") {
    rapidjson::Document d;
    authoring::reportJson(report, d, d.GetAllocator());
    std::printf("%s\n", authoring::toJson(d, true).c_str());
  } else {
    std::fputs(authoring::reportText(report).c_str(), stdout);
  }
  return report.allowed ? 0 : 1;
}

int runReviewCommand(int argc, char** argv) {
  CommandLine cl(
      "review", "usage: gpu-admission review -f FILE [options]",
      "Runs one Pod or workload (Deployment, Job, PyTorchJob...) through the webhook exactly as "
      "an\n"
      "API server request, and prints the decision, the warnings, the patch and the patched "
      "object.\n",
      "exit status: 0 admitted, 1 denied, 2 bad input or usage error\n");
  ReviewOptions o;
  CLI::App& app = cl.app();
  cl.require(app.add_option("-f,--file", o.file, "the object, YAML or JSON ('-' = stdin)")
                 ->type_name("FILE"));
  app.add_option("-n,--namespace", o.namespaceName,
                 "request namespace (default: metadata.namespace, else default)")
      ->type_name("NS");
  app.add_option("-l,--namespace-labels", o.labels,
                 "labels of that namespace (rollout, quotas, exemptions)")
      ->type_name("K=V,...")
      ->check(labelList());
  app.add_option("-p,--policies", o.policies, "policy files or directories (default: policies)")
      ->type_name("PATH,...");
  app.add_option("--usage-from", o.usageFrom,
                 "GPU usage from `kubectl get pods -A -o json` (and ns lists);\n"
                 "default: an empty cluster (nothing in use)")
      ->type_name("FILE,...");
  app.add_flag("--usage-unavailable", o.usageUnavailable,
               "pretend live usage is unknown (tests quotaUnavailable)");
  app.add_option("--nodes-from", o.nodesFrom,
                 "node supply from `kubectl get nodes -o json`: capacity checks\n"
                 "(allocated and pending from the --usage-from pods)")
      ->type_name("FILE,...");
  app.add_option("--dra-from", o.draFrom,
                 "DRA objects the pod's claims resolve against (spec.dra): `kubectl get\n"
                 "deviceclasses,resourceclaims,resourceclaimtemplates,resourceslices -A -o json`")
      ->type_name("FILE,...");
  app.add_option("--operation", o.operation, "CREATE (default) | UPDATE | DELETE | CONNECT")
      ->type_name("OP")
      ->check(CLI::IsMember({"CREATE", "UPDATE", "DELETE", "CONNECT"}).description(""));
  // "yaml" is the text output (its patched object is YAML), as it always was.
  app.add_option("-o,--output", o.output,
                 "text: summary and patched object as YAML (default); json: one\n"
                 "object {object, allowed, status, outcome, class, ..., patchedObject}")
      ->type_name("text|json")
      ->check(CLI::IsMember({"text", "json", "yaml"}).description(""));
  return cl.run(argc, argv, [&o] { return review(o); });
}

const CommandRegistrar kReview{
    {"review", "show the webhook's decision and patch for one pod or workload", &runReviewCommand}};

}  // namespace
}  // namespace gpua::cli
