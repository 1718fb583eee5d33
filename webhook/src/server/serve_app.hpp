// `gpu-admission serve`: loads policies and certificates, listens, serves until SIGTERM or
// SIGINT, then drains. Startup problems are one line on stderr and exit code 1.
#pragma once

#include <cstdio>
#include <memory>

#include "engine/usage.hpp"
#include "server/serve_config.hpp"

namespace gpua::server {

struct ServeRuntime {
  // Live cluster state (namespaces, GPU usage). Null: usage is an empty snapshot with
  // available=false and readiness does not wait for a sync.
  std::shared_ptr<const engine::UsageSource> usage;
  std::FILE* log = stdout;      // JSON lines
  std::FILE* console = stderr;  // the startup banner and startup errors
};

// Returns the process exit status: 0 after a graceful shutdown, 1 on a startup error.
int runServe(const ServeConfig& config, const ServeRuntime& runtime = {});

}  // namespace gpua::server
