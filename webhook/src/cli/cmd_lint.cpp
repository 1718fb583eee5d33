// gpu-admission lint [DIR|FILE...]: load policy files strictly and report every problem as
// file:line:col: keyPath: message (hint: ...), the way compilers do, so editors can jump to it.
#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

#include "cli/command_registry.hpp"
#include "policy/loader.hpp"

namespace gpua::cli {

namespace {

constexpr const char* kDefaultPath = "policies";

void printHelp(std::FILE* out) {
  std::fprintf(out,
               "usage: gpu-admission lint [DIR|FILE...]\n\n"
               "Checks policy files (default: %s). A directory means every *.yaml/*.yml file\n"
               "directly inside it, in name order; all files merge into one policy.\n\n"
               "Exit status: 0 when the policy loads, 1 when it has errors (printed on\n"
               "stderr as file:line:col: key.path: message (hint: ...)), 2 on bad usage.\n",
               kDefaultPath);
}

std::string joined(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& i : items) out += (out.empty() ? "" : " ") + i;
  return out;
}

int runLint(int argc, char** argv) {
  std::vector<std::string> paths;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg == "--help" || arg == "-h") {
      printHelp(stdout);
      return 0;
    }
    if (arg.starts_with("-") && arg != "-") {
      std::fprintf(stderr, "gpu-admission lint: unknown option '%s'\n\n", argv[i]);
      printHelp(stderr);
      return 2;
    }
    paths.emplace_back(arg);
  }
  if (paths.empty()) paths.emplace_back(kDefaultPath);

  const auto result = policy::loadPolicyPaths(paths);
  if (!result.ok()) {
    for (const auto& d : result.errors) std::fprintf(stderr, "%s\n", d.format().c_str());
    std::fprintf(stderr, "%s: %zu error%s\n", joined(paths).c_str(), result.errors.size(),
                 result.errors.size() == 1 ? "" : "s");
    return 1;
  }
  const auto& p = *result.policy;
  std::printf("%s: OK (%zu files, %zu pools, %zu classes, %zu quotas, revision %s)\n",
              joined(paths).c_str(), p.sourceFiles.size(), p.pools.size(), p.classes.size(),
              p.quotas.size(), p.revision.c_str());
  return 0;
}

const CommandRegistrar kLint{
    {"lint", "check policy files (file:line:col errors with hints)", &runLint}};

}  // namespace
}  // namespace gpua::cli
