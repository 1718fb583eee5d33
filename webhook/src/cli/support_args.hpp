// A small command-line parser shared by the policy author's commands. Options are declared up
// front so a typo ("--namspace") is a usage error naming the option, not a silent no-op.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "kube/label_selector.hpp"

namespace gpua::cli {

// Bad command line: the command prints it with its usage and exits 2.
class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class Args {
 public:
  // `valued`: options that take a value ("--policies"); `flags`: options that do not ("--help").
  // Short aliases map to long names ({"-f", "--file"}).
  Args(std::set<std::string> valued, std::set<std::string> flags,
       std::map<std::string, std::string> aliases = {});

  // Parses argv[1..argc) (argv[0] is the command name). Throws UsageError.
  void parse(int argc, char** argv);

  bool has(const std::string& name) const { return values_.count(name) > 0; }
  std::optional<std::string> get(const std::string& name) const;
  std::string getOr(const std::string& name, std::string fallback) const;
  const std::vector<std::string>& positional() const { return positional_; }

 private:
  std::set<std::string> valued_, flags_;
  std::map<std::string, std::string> aliases_;
  std::map<std::string, std::string> values_;
  std::vector<std::string> positional_;
};

// "team=vision,env=dev" -> labels. Throws UsageError on an entry without '='.
kube::Labels parseLabelList(const std::string& text);

}  // namespace gpua::cli
