#include "cli/support_args.hpp"

namespace gpua::cli {

Args::Args(std::set<std::string> valued, std::set<std::string> flags,
           std::map<std::string, std::string> aliases)
    : valued_(std::move(valued)), flags_(std::move(flags)), aliases_(std::move(aliases)) {}

void Args::parse(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg.size() < 2 || arg[0] != '-') {
      positional_.push_back(arg);
      continue;
    }
    std::optional<std::string> inlineValue;
    if (auto eq = arg.find('='); arg.rfind("--", 0) == 0 && eq != std::string::npos) {
      inlineValue = arg.substr(eq + 1);
      arg.resize(eq);
    }
    if (auto a = aliases_.find(arg); a != aliases_.end()) arg = a->second;
    if (flags_.count(arg)) {
      if (inlineValue) throw UsageError("option " + arg + " takes no value");
      values_[arg] = "true";
    } else if (valued_.count(arg)) {
      if (inlineValue) {
        values_[arg] = *inlineValue;
      } else if (i + 1 < argc) {
        values_[arg] = argv[++i];
      } else {
        throw UsageError("option " + arg + " needs a value");
      }
    } else {
      throw UsageError("unknown option " + arg);
    }
  }
}

std::optional<std::string> Args::get(const std::string& name) const {
  auto it = values_.find(name);
  if (it == values_.end()) return std::nullopt;
  return it->second;
}

std::string Args::getOr(const std::string& name, std::string fallback) const {
  auto v = get(name);
  return v ? *v : std::move(fallback);
}

kube::Labels parseLabelList(const std::string& text) {
  kube::Labels labels;
  std::size_t start = 0;
  while (start <= text.size()) {
    auto end = text.find(',', start);
    if (end == std::string::npos) end = text.size();
    const std::string item = text.substr(start, end - start);
    if (!item.empty()) {
      const auto eq = item.find('=');
      if (eq == std::string::npos || eq == 0)
        throw UsageError("label \"" + item + "\" is not key=value");
      labels[item.substr(0, eq)] = item.substr(eq + 1);
    }
    start = end + 1;
  }
  return labels;
}

}  // namespace gpua::cli
