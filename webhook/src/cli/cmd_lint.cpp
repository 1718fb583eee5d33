// gpu-admission lint [DIR|FILE...]: load policy files strictly and report every problem as
// file:line:col: keyPath: message (hint: ...), the way compilers do, so editors can jump to it.
#include <cstdio>
#include <string>
#include <vector>

#include "cli/command_line.hpp"
#include "cli/command_registry.hpp"
#include "policy/loader.hpp"

namespace gpua::cli {

namespace {

constexpr const char* kDefaultPath = "policies";

std::string joined(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& i : items) out.append(out.empty() ? "" : " ").append(i);
  return out;
}

int lint(std::vector<std::string> paths) {
  if (paths.empty()) paths.emplace_back(kDefaultPath);
  const auto result = policy::loadPolicyPaths(paths);
  if (!result.ok()) {
    for (const auto& d : result.errors) std::fprintf(stderr, "%s\n", d.format().c_str());
    std::fprintf(stderr, "%s: %zu error%s\n", joined(paths).c_str(), result.errors.size(),
                 result.errors.size() == 1 ? "" : "s");
    return 1;
  }
  for (const auto& w : result.warnings) std::fprintf(stderr, "warning: %s\n", w.format().c_str());
  const auto& p = *result.policy;
  std::printf("%s: OK (%zu files, %zu pools, %zu classes, %zu quotas, revision %s)\n",
              joined(paths).c_str(), p.sourceFiles.size(), p.pools.size(), p.classes.size(),
              p.quotas.size(), p.revision.c_str());
  return 0;
}

int runLint(int argc, char** argv) {
  CommandLine cl("lint", "usage: gpu-admission lint [DIR|FILE...]",
                 std::string("Checks policy files (default: ") + kDefaultPath +
                     "). A directory means every *.yaml/*.yml file\n"
                     "directly inside it, in name order; all files merge into one policy.\n",
                 "Exit status: 0 when the policy loads, 1 when it has errors (printed on\n"
                 "stderr as file:line:col: key.path: message (hint: ...)), 2 on bad usage.\n");
  std::vector<std::string> paths;
  cl.app().add_option("paths", paths, "policy files and directories")->type_name("PATH");
  return cl.run(argc, argv, [&paths] { return lint(paths); });
}

const CommandRegistrar kLint{
    {"lint", "check policy files (file:line:col errors with hints)", &runLint}};

}  // namespace
}  // namespace gpua::cli
