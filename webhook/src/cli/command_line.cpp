#include "cli/command_line.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>

#include "authoring/policy_files.hpp"
#include "policy/edit_distance.hpp"

namespace gpua::cli {
namespace {

// Options are listed as "  -f, --file FILE" with long-only ones aligned under the long names,
// descriptions in a column after the widest name (a longer one runs on after two spaces), and
// continuation lines of a description indented to that column.
constexpr std::size_t kMaxNameColumn = 30;
// CLI11's group of options declared without one: listed without a heading.
constexpr const char* kDefaultGroup = "Options";

std::string optionName(const CLI::Option& o) {
  std::string out = "  ";
  const auto& shorts = o.get_snames();
  out.append(shorts.empty() ? "    " : "-" + shorts.front() + ", ");
  for (std::size_t i = 0; i < o.get_lnames().size(); ++i)
    out.append(i ? ", --" : "--").append(o.get_lnames()[i]);
  if (const std::string type = o.get_type_name(); !type.empty() && o.get_type_size() != 0)
    out.append(" ").append(type);
  return out;
}

std::string optionLine(const CLI::Option& o, std::size_t column) {
  std::string line = optionName(o);
  const std::string& text = o.get_description();
  if (text.empty()) return line + "\n";
  line.append(line.size() + 2 <= column ? column - line.size() : 2, ' ');
  for (char c : text) {
    line.push_back(c);
    if (c == '\n') line.append(column, ' ');
  }
  return line + "\n";
}

// Help made from the declared options: usage, description, the options in declaration order
// (groups other than CLI11's default one get a heading), then the footer.
class HelpFormatter final : public CLI::FormatterBase {
 public:
  explicit HelpFormatter(std::string usage) : usage_(std::move(usage)) {}

  std::string make_help(const CLI::App* app, std::string, CLI::AppFormatMode) const override {
    const auto options = app->get_options([app](const CLI::Option* o) {
      return o != app->get_help_ptr() && o->nonpositional() && !o->get_group().empty();
    });
    std::size_t column = 0;
    for (const auto* o : options)
      if (const auto width = optionName(*o).size(); width <= kMaxNameColumn)
        column = std::max(column, width + 2);
    std::string out = usage_ + "\n";
    if (!app->get_description().empty()) out.append("\n").append(app->get_description());
    if (!options.empty()) out.append("\n");
    std::string group = kDefaultGroup;
    for (const auto* o : options) {
      if (o->get_group() != group) {
        group = o->get_group();
        out.append(group == kDefaultGroup ? "\n" : "  " + group + ":\n");
      }
      out.append(optionLine(*o, column));
    }
    if (!app->get_footer().empty()) out.append("\n").append(app->get_footer());
    return out;
  }

 private:
  std::string usage_;
};

// The declared spellings of every option, for "did you mean".
std::vector<std::string> optionSpellings(const CLI::App& app) {
  std::vector<std::string> out;
  for (const auto* o : app.get_options()) {
    for (const auto& s : o->get_snames()) out.push_back("-" + s);
    for (const auto& l : o->get_lnames()) out.push_back("--" + l);
  }
  return out;
}

void printError(const std::string& name, const std::string& message, const std::string& help) {
  std::fprintf(stderr, "gpu-admission %s: %s\n\n%s", name.c_str(), message.c_str(), help.c_str());
}

}  // namespace

CommandLine::CommandLine(std::string name, std::string usage, std::string description,
                         std::string footer)
    : name_(std::move(name)), app_(std::move(description), "gpu-admission " + name_) {
  app_.formatter(std::make_shared<HelpFormatter>(std::move(usage)));
  app_.footer(std::move(footer));
  app_.set_help_flag("-h,--help", "print this help");
  // Unknown arguments are collected, not refused, so rejectLeftovers can say which and suggest
  // the option meant.
  app_.allow_extras();
  // As before CLI11: an option given twice takes its last value.
  app_.option_defaults()->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
}

CLI::Option* CommandLine::require(CLI::Option* option) {
  required_.push_back(option);
  return option;
}

std::string CommandLine::help() const {
  return app_.help();
}

void CommandLine::rejectLeftovers() const {
  for (const std::string& arg : app_.remaining()) {
    if (arg.size() < 2 || arg[0] != '-') throw UsageError("unexpected argument '" + arg + "'");
    const std::string flag = arg.substr(0, arg.find('='));
    std::string message = "unknown option " + flag;
    if (const auto near = policy::nearest(flag, optionSpellings(app_)); !near.empty())
      message.append(" (did you mean ").append(near).append("?)");
    throw UsageError(message);
  }
}

void CommandLine::checkRequired() const {
  for (const auto* o : required_)
    if (o->count() == 0) throw UsageError(o->get_name() + " is required");
}

int CommandLine::run(int argc, char** argv, const std::function<int()>& body) {
  try {
    app_.parse(argc, argv);
    rejectLeftovers();
    checkRequired();
    return body();
  } catch (const CLI::CallForHelp&) {
    std::fputs(help().c_str(), stdout);
    return 0;
  } catch (const CLI::ParseError& e) {
    printError(name_, e.what(), help());
    return 2;
  } catch (const UsageError& e) {
    printError(name_, e.what(), help());
    return 2;
  } catch (const authoring::PolicyLoadError& e) {
    for (const auto& d : e.diagnostics()) std::fprintf(stderr, "%s\n", d.format().c_str());
    std::fprintf(stderr, "gpu-admission %s: error: %s\n", name_.c_str(), e.what());
    return 2;
  } catch (const authoring::InputError& e) {
    std::fprintf(stderr, "gpu-admission %s: error: %s\n", name_.c_str(), e.what());
    return 2;
  }
}

CLI::Validator labelList() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        for (const auto& item : splitList(text))
          if (const auto eq = item.find('='); eq == std::string::npos || eq == 0)
            return "label \"" + item + "\" is not key=value";
        return "";
      },
      "");
}

CLI::Validator numberAtLeast(double min) {
  return CLI::Validator(
      [min](std::string& text) -> std::string {
        char* end = nullptr;
        const double v = std::strtod(text.c_str(), &end);
        if (text.empty() || *end != '\0' || !(v >= min)) {
          char bound[32];
          std::snprintf(bound, sizeof bound, "%g", min);
          return std::string("expected a number >= ").append(bound).append(", got '") + text + "'";
        }
        return "";
      },
      "");
}

std::vector<std::string> splitList(const std::string& text) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (start <= text.size()) {
    auto end = text.find(',', start);
    if (end == std::string::npos) end = text.size();
    if (end > start) out.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return out;
}

kube::Labels parseLabelList(const std::string& text) {
  kube::Labels labels;
  for (const auto& item : splitList(text)) {
    const auto eq = item.find('=');
    if (eq == std::string::npos || eq == 0)
      throw UsageError("label \"" + item + "\" is not key=value");
    labels[item.substr(0, eq)] = item.substr(eq + 1);
  }
  return labels;
}

}  // namespace gpua::cli
