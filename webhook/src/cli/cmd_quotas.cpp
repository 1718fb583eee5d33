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

#include "cli/command_registry.hpp"
#include "inventory/quota_render.hpp"
#include "kube/json_parse.hpp"
#include "policy/loader.hpp"

namespace gpua::cli {

namespace {

void printHelp(std::FILE* out) {
  std::fprintf(
      out,
      "usage: gpu-admission quotas render [--policies DIR|FILE]... [--namespaces ns.json]\n"
      "                                   [--namespace NAME[=label=value,...]]... [-o FILE]\n\n"
      "Writes ResourceQuota manifests (requests.<gpu resource>, and one per class scoped to\n"
      "its PriorityClass) for the policy's quotas, as the atomic backstop behind the webhook.\n"
      "GPU-equivalent budgets B become floor(B / GE per unit) units of each GPU resource.\n\n"
      "  --policies      policy files or directories (default: policies)\n"
      "  --namespaces    namespaces with labels: kubectl get ns -o json\n"
      "  --namespace     a namespace and its labels, repeatable: team-a=team=vision,env=dev\n"
      "  -o, --output    write to FILE instead of stdout\n\n"
      "Quotas that select namespaces by labels need --namespaces or --namespace. What\n"
      "ResourceQuota cannot express is printed as '# NOTE:' comments and on stderr.\n"
      "Exit status: 0 rendered, 1 policy or input errors, 2 bad usage.\n");
}

struct Options {
  std::vector<std::string> policies;
  std::optional<std::string> namespacesFile;
  std::vector<std::string> namespaceSpecs;
  std::optional<std::string> output;
};

// Returns an exit status when parsing ends the command (help, bad usage).
std::optional<int> parseArgs(int argc, char** argv, Options& o) {
  if (argc < 2 || std::string_view(argv[1]) != "render") {
    if (argc >= 2 && (std::string_view(argv[1]) == "--help" || std::string_view(argv[1]) == "-h")) {
      printHelp(stdout);
      return 0;
    }
    std::fprintf(stderr, "gpu-admission quotas: expected the subcommand 'render'\n\n");
    printHelp(stderr);
    return 2;
  }
  for (int i = 2; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg == "--help" || arg == "-h") {
      printHelp(stdout);
      return 0;
    }
    const bool valued = arg == "--policies" || arg == "--namespaces" || arg == "--namespace" ||
                        arg == "-o" || arg == "--output";
    if (!valued) {
      std::fprintf(stderr, "gpu-admission quotas render: unknown option '%s'\n\n", argv[i]);
      printHelp(stderr);
      return 2;
    }
    if (i + 1 >= argc) {
      std::fprintf(stderr, "gpu-admission quotas render: %s needs a value\n", argv[i]);
      return 2;
    }
    const std::string value = argv[++i];
    if (arg == "--policies") o.policies.push_back(value);
    if (arg == "--namespaces") o.namespacesFile = value;
    if (arg == "--namespace") o.namespaceSpecs.push_back(value);
    if (arg == "-o" || arg == "--output") o.output = value;
  }
  if (o.policies.empty()) o.policies.emplace_back("policies");
  return std::nullopt;
}

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
  if (!o.namespacesFile && o.namespaceSpecs.empty()) return std::nullopt;
  std::vector<inventory::NamespaceInfo> out;
  if (o.namespacesFile) out = readNamespaces(*o.namespacesFile);
  for (const auto& spec : o.namespaceSpecs) out.push_back(inventory::parseNamespaceSpec(spec));
  return out;
}

int render(const Options& o) {
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
  if (o.output) {
    std::ofstream out(*o.output, std::ios::binary | std::ios::trunc);
    out << result.yaml;
    if (!out) {
      std::fprintf(stderr, "gpu-admission quotas render: cannot write %s\n", o.output->c_str());
      return 1;
    }
  } else {
    std::fwrite(result.yaml.data(), 1, result.yaml.size(), stdout);
  }
  std::fprintf(stderr, "%d ResourceQuota%s rendered\n", result.manifests,
               result.manifests == 1 ? "" : "s");
  return 0;
}

int runQuotas(int argc, char** argv) {
  Options o;
  if (auto status = parseArgs(argc, argv, o)) return *status;
  return render(o);
}

const CommandRegistrar kQuotas{
    {"quotas", "render ResourceQuota manifests from the policy's quotas", &runQuotas}};

}  // namespace
}  // namespace gpua::cli
