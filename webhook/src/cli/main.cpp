// gpu-admission: one binary for the webhook server and the policy author's tools.
#include <algorithm>
#include <cstdio>
#include <exception>
#include <string_view>

#include "cli/command_registry.hpp"

namespace gpua::cli {

std::vector<Command>& commandRegistry() {
  static std::vector<Command> commands;
  return commands;
}

namespace {

void printUsage(std::FILE* out) {
  std::fprintf(out, "usage: gpu-admission <command> [options]\n\ncommands:\n");
  auto commands = commandRegistry();
  std::sort(commands.begin(), commands.end(),
            [](const Command& a, const Command& b) { return a.name < b.name; });
  for (const auto& c : commands)
    std::fprintf(out, "  %-10.*s %.*s\n", static_cast<int>(c.name.size()), c.name.data(),
                 static_cast<int>(c.summary.size()), c.summary.data());
  std::fprintf(out, "\nRun 'gpu-admission <command> --help' for a command's options.\n");
}

}  // namespace
}  // namespace gpua::cli

int main(int argc, char** argv) {
  using namespace gpua::cli;
  if (argc < 2) {
    printUsage(stderr);
    return 2;
  }
  const std::string_view name = argv[1];
  if (name == "--help" || name == "-h" || name == "help") {
    printUsage(stdout);
    return 0;
  }
  for (const auto& c : commandRegistry()) {
    if (c.name != name) continue;
    try {
      return c.run(argc - 1, argv + 1);
    } catch (const std::exception& e) {
      // Commands report their own errors; this is the last edge before the shell.
      std::fprintf(stderr, "gpu-admission %s: error: %s\n", argv[1], e.what());
      return 3;
    }
  }
  std::fprintf(stderr, "gpu-admission: unknown command '%s'\n\n", argv[1]);
  printUsage(stderr);
  return 2;
}
