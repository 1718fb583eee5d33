// `gpu-admission serve`: the admission webhook over TLS. Settings come from flags and
// GPU_ADMISSION_* environment variables (see server/serve_config.hpp and docs/operations.md).
#include <cstdio>

#include "cli/command_registry.hpp"
#include "server/serve_app.hpp"
#include "server/serve_config.hpp"

namespace gpua::cli {
namespace {

int runServeCommand(int argc, char** argv) {
  const auto parsed = server::parseServeConfig(argc, argv, server::processEnv());
  if (!parsed.config) {
    std::fprintf(stderr, "gpu-admission serve: error: %s\n", parsed.error.c_str());
    return 1;
  }
  if (parsed.config->help) {
    std::fputs(server::serveUsage().c_str(), stdout);
    return 0;
  }
  return server::runServe(*parsed.config);
}

const CommandRegistrar kServe{{"serve", "run the admission webhook over TLS", &runServeCommand}};

}  // namespace
}  // namespace gpua::cli
