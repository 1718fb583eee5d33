// The command line of `gpu-admission` commands, on CLI11. Each command declares its options
// once; the parser, the unknown-option check and the --help text all come from that one list,
// so the help cannot drift from what is parsed. The edge every command shares is here too:
// --help answers on stdout with exit 0, a bad command line is one line naming the flag followed
// by the help on stderr with exit 2, and a bad input file is one line with exit 2.
#pragma once

#include <CLI/CLI.hpp>

#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include "kube/label_selector.hpp"

namespace gpua::cli {

// A bad command line the declarations cannot express (options that exclude each other, a value
// checked against the input): printed like CLI11's own errors, exit 2.
class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class CommandLine {
 public:
  // `name`: the command as typed ("review", "quotas render"); `usage`: the synopsis, one or
  // more lines starting "usage: "; `description`: what the command does; `footer`: notes and
  // the exit status, printed after the options.
  CommandLine(std::string name, std::string usage, std::string description, std::string footer);

  CLI::App& app() { return app_; }

  // An option that must be given. Checked after the unknown-option check, so a misspelt
  // required flag is reported as the typo it is.
  CLI::Option* require(CLI::Option* option);

  // Parses argv[1..argc) (argv[0] is the command name), then runs `body`. Returns the exit
  // status: --help 0, a bad command line or input 2, else what `body` returns.
  int run(int argc, char** argv, const std::function<int()>& body);

  std::string help() const;

 private:
  void rejectLeftovers() const;
  void checkRequired() const;

  std::string name_;
  CLI::App app_;
  std::vector<CLI::Option*> required_;
};

// CLI11 checks shared by the commands; each failure message names the flag through CLI11.
// "k=v,k2=v2": every entry has a key.
CLI::Validator labelList();
// A number >= `min` ("1", "0.5", "1e3").
CLI::Validator numberAtLeast(double min);

// Comma-separated option values ("policies,extra.yaml"): split on ',', empty entries dropped.
std::vector<std::string> splitList(const std::string& text);

// "team=vision,env=dev" -> labels (checked by labelList()).
kube::Labels parseLabelList(const std::string& text);

}  // namespace gpua::cli
