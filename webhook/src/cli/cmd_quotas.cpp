// gpu-admission quotas render: writes the native ResourceQuota backstop for the policy's quotas
// (see docs/quotas.md for the conversion rule and what ResourceQuota cannot express).
#include <rapidjson/document.h>

#include <cstdio>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "cli/command_line.hpp"
#include "cli/command_registry.hpp"
#include "inventory/quota_render.hpp"
#include "kube/json_parse.hpp"
#include "policy/loader.hpp"

namespace gpua::cli {

namespace {

struct Options {
  std::vector<std::string> policies;
  std::string namespacesFile;
  std::vector<std::string> namespaceSpecs;
  std::string output;
};

std::vector<inventory::NamespaceInfo> readNamespaces(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error(path + ": cannot read namespaces file");
  std::ostringstream text;
  text << in.rdbuf();
  rapidjson::Document d;
  if (const auto parsed = kube::parseJson(text.str(), d); !parsed.ok())
    throw std::runtime_error(path + ": " + parsed.message);
  return inventory::namespacesFromJson(d);
}

std::optional<std::vector<inventory::NamespaceInfo>> namespacesOf(const Options& o) {
  if (o.namespacesFile.empty() && o.namespaceSpecs.empty()) return std::nullopt;
  std::vector<inventory::NamespaceInfo> out;
  if (!o.namespacesFile.empty()) out = readNamespaces(o.namespacesFile);
  for (const auto& spec : o.namespaceSpecs) out.push_back(inventory::parseNamespaceSpec(spec));
  return out;
}

int render(Options& o) {
  if (o.policies.empty()) o.policies.emplace_back("policies");
  const auto loaded = policy::loadPolicyPaths(o.policies);
  if (!loaded.ok()) {
    for (const auto& d : loaded.errors) std::fprintf(stderr, "%s\n", d.format().c_str());
    return 1;
  }
  std::optional<std::vector<inventory::NamespaceInfo>> namespaces;
  try {
    namespaces = namespacesOf(o);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "gpu-admission quotas render: %s\n", e.what());
    // A malformed --namespace is bad usage; an unreadable file is an input error.
    return dynamic_cast<const inventory::NamespaceSpecError*>(&e) != nullptr ? 2 : 1;
  }
  const auto result = inventory::renderResourceQuotas(*loaded.policy, namespaces);
  for (const auto& n : result.notes) std::fprintf(stderr, "note: %s\n", n.c_str());
  if (!o.output.empty()) {
    std::ofstream out(o.output, std::ios::binary | std::ios::trunc);
    out << result.yaml;
    if (!out) {
      std::fprintf(stderr, "gpu-admission quotas render: cannot write %s\n", o.output.c_str());
      return 1;
    }
  } else {
    std::fwrite(result.yaml.data(), 1, result.yaml.size(), stdout);
  }
  std::fprintf(stderr, "%d ResourceQuota%s rendered\n", result.manifests,
               result.manifests == 1 ? "" : "s");
  return 0;
}

// Each occurrence of a repeatable option takes one value ("--namespace a --namespace b").
CLI::Option* repeatable(CLI::Option* option) {
  return option->allow_extra_args(false)->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
}

void declare(CommandLine& cl, Options& o) {
  CLI::App& app = cl.app();
  repeatable(app.add_option("--policies", o.policies,
                            "policy files or directories (default: policies), repeatable"))
      ->type_name("PATH");
  app.add_option("--namespaces", o.namespacesFile, "namespaces with labels: kubectl get ns -o json")
      ->type_name("FILE");
  repeatable(app.add_option("--namespace", o.namespaceSpecs,
                            "a namespace and its labels, repeatable: team-a=team=vision,env=dev"))
      ->type_name("NS[=K=V,...]");
  app.add_option("-o,--output", o.output, "write to FILE instead of stdout")->type_name("FILE");
}

// `quotas` has one subcommand, `render`, whose options are all there is.
int runQuotas(int argc, char** argv) {
  CommandLine cl(
      "quotas render",
      "usage: gpu-admission quotas render [--policies PATH]... [--namespaces FILE]\n"
      "                                   [--namespace NS[=K=V,...]]... [-o FILE]",
      "Writes ResourceQuota manifests (requests.<gpu resource>, and one per class scoped to\n"
      "its PriorityClass) for the policy's quotas, as the atomic backstop behind the webhook.\n"
      "GPU-equivalent budgets B become floor(B / GE per unit) units of each GPU resource.\n",
      "Quotas that select namespaces by labels need --namespaces or --namespace. What\n"
      "ResourceQuota cannot express is printed as '# NOTE:' comments and on stderr.\n"
      "Exit status: 0 rendered, 1 policy or input errors, 2 bad usage.\n");
  Options o;
  declare(cl, o);
  const std::string_view first = argc > 1 ? argv[1] : "";
  if (first == "render") return cl.run(argc - 1, argv + 1, [&o] { return render(o); });
  if (first == "--help" || first == "-h") {
    std::fputs(cl.help().c_str(), stdout);
    return 0;
  }
  std::fprintf(stderr, "gpu-admission quotas: expected the subcommand 'render'\n\n%s",
               cl.help().c_str());
  return 2;
}

const CommandRegistrar kQuotas{
    {"quotas", "render ResourceQuota manifests from the policy's quotas", &runQuotas}};

}  // namespace
}  // namespace gpua::cli
