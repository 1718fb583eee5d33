// Subcommands of the `gpu-admission` binary register themselves here, one file per command
// (cmd_<name>.cpp), so commands can be added without touching main.cpp.
//
//   static const gpua::cli::CommandRegistrar kLint{{"lint", "check policy files", &runLint}};
//
// run() gets the command's own arguments (argv[0] is the command name) and returns the exit
// status.
#pragma once

#include <string_view>
#include <vector>

namespace gpua::cli {

struct Command {
  std::string_view name;
  std::string_view summary;
  int (*run)(int argc, char** argv);
};

std::vector<Command>& commandRegistry();

struct CommandRegistrar {
  explicit CommandRegistrar(Command c) { commandRegistry().push_back(c); }
};

}  // namespace gpua::cli
