#include "cli/support_command.hpp"

#include <cstdio>

#include "authoring/policy_files.hpp"

namespace gpua::cli {

int runParsedCommand(std::string_view name, const char* usage, Args& args, int argc, char** argv,
                     int (*body)(const Args&)) {
  const int n = static_cast<int>(name.size());
  try {
    args.parse(argc, argv);
    if (args.has("--help")) {
      std::fputs(usage, stdout);
      return 0;
    }
    return body(args);
  } catch (const UsageError& e) {
    std::fprintf(stderr, "gpu-admission %.*s: %s\n\n%s", n, name.data(), e.what(), usage);
    return 2;
  } catch (const authoring::PolicyLoadError& e) {
    for (const auto& d : e.diagnostics()) std::fprintf(stderr, "%s\n", d.format().c_str());
    std::fprintf(stderr, "gpu-admission %.*s: error: %s\n", n, name.data(), e.what());
    return 2;
  } catch (const authoring::InputError& e) {
    std::fprintf(stderr, "gpu-admission %.*s: error: %s\n", n, name.data(), e.what());
    return 2;
  }
}

}  // namespace gpua::cli
