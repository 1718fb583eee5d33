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
#include "cli/command_registry.hpp"
#include "cli/support_args.hpp"
#include "cli/support_command.hpp"
#include "cli/support_split.hpp"

namespace gpua::cli {
namespace {

using authoring::emptyUsage;
using authoring::InputError;
using authoring::ReviewError;
using authoring::ReviewReport;
using authoring::ReviewRequest;
using authoring::unavailableUsage;

constexpr const char* kUsage =
    "usage: gpu-admission review -f FILE [options]\n"
    "\n"
    "Runs one Pod or workload (Deployment, Job, PyTorchJob...) through the webhook exactly as an\n"
    "API server request, and prints the decision, the warnings, the patch and the patched object.\n"
    "\n"
    "  -f, --file FILE            the object, YAML or JSON ('-' = stdin)\n"
    "  -n, --namespace NS         request namespace (default: metadata.namespace, else default)\n"
    "  -l, --namespace-labels K=V,...  labels of that namespace (rollout, quotas, exemptions)\n"
    "  -p, --policies PATH,...    policy files or directories (default: policies)\n"
    "      --usage-from FILE,...  GPU usage from `kubectl get pods -A -o json` (and ns lists);\n"
    "                             default: an empty cluster (nothing in use)\n"
    "      --usage-unavailable    pretend live usage is unknown (tests quotaUnavailable)\n"
    "      --nodes-from FILE,...  node supply from `kubectl get nodes -o json`: capacity checks\n"
    "                             (allocated and pending from the --usage-from pods)\n"
    "      --operation OP         CREATE (default) | UPDATE | DELETE | CONNECT\n"
    "  -o, --output text|json     text: summary and patched object as YAML (default)\n"
    "\n"
    "exit status: 0 admitted, 1 denied, 2 bad input or usage error\n";

int review(const Args& args) {
  const auto file = args.get("--file");
  if (!file) throw UsageError("-f FILE is required");
  const std::string output = args.getOr("--output", "text");
  if (output != "text" && output != "json" && output != "yaml")
    throw UsageError("--output must be text or json");
  const auto policy = authoring::loadPolicies(splitList(args.getOr("--policies", "policies")));
  const rapidjson::Document object = authoring::readDocumentFile(*file);

  const ClusterFileReader files;
  engine::UsageSnapshot usage =
      args.has("--usage-unavailable") ? unavailableUsage("--usage-unavailable given")
      : args.has("--usage-from")      ? files.usage(splitList(*args.get("--usage-from")), *policy)
                                      : emptyUsage();
  ReviewRequest req;
  req.object = &object;
  req.namespaceName = args.getOr("--namespace", "");
  req.operation = args.getOr("--operation", "CREATE");
  if (auto labels = args.get("--namespace-labels")) {
    // Labels belong to the namespace the request ends up in; resolve it first.
    usage.namespaceLabels[authoring::requestNamespace(object, req.namespaceName)] =
        parseLabelList(*labels);
  }

  const engine::SupplySnapshot supply =
      args.has("--nodes-from") ? files.supply(splitList(*args.get("--nodes-from")),
                                              splitList(args.getOr("--usage-from", "")), *policy)
                               : engine::SupplySnapshot{};
  ReviewReport report;
  try {
    report = authoring::runReview(req, *policy, usage, supply);
  } catch (const ReviewError& e) {
    throw InputError(*file + ": " + e.what());
  }
  if (output == "json") {
    rapidjson::Document d;
    authoring::reportJson(report, d, d.GetAllocator());
    std::printf("%s\n", authoring::toJson(d, true).c_str());
  } else {
    std::fputs(authoring::reportText(report).c_str(), stdout);
  }
  return report.allowed ? 0 : 1;
}

int runReviewCommand(int argc, char** argv) {
  Args args({"--file", "--namespace", "--namespace-labels", "--policies", "--usage-from",
             "--nodes-from", "--operation", "--output"},
            {"--help", "--usage-unavailable"},
            {{"-f", "--file"},
             {"-n", "--namespace"},
             {"-l", "--namespace-labels"},
             {"-p", "--policies"},
             {"-o", "--output"},
             {"-h", "--help"}});
  return runParsedCommand("review", kUsage, args, argc, argv, &review);
}

const CommandRegistrar kReview{
    {"review", "show the webhook's decision and patch for one pod or workload", &runReviewCommand}};

}  // namespace
}  // namespace gpua::cli
