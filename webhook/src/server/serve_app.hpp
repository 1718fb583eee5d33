// `gpu-admission serve`: loads policies and certificates, listens, serves until SIGTERM or
// SIGINT, then drains. Startup problems are one line on stderr and exit code 1.
#pragma once

#include <cstdio>
#include <functional>
#include <memory>
#include <string>

#include "engine/context/reservations.hpp"
#include "engine/context/supply.hpp"
#include "engine/context/usage.hpp"
#include "policy/policy_set.hpp"
#include "server/serve_config.hpp"
#include "telemetry/json_logger.hpp"
#include "telemetry/metrics.hpp"

namespace gpua::server {

// What a usage source started by `serve` gets from it: the registry its metrics go to, the
// policy in force (hot reloads swap it) and the log. All outlive the source.
struct UsageContext {
  telemetry::Registry& registry;
  std::function<std::shared_ptr<const policy::PolicySet>()> policy;
  telemetry::JsonLogger& logger;
};

struct UsageHookup {
  std::shared_ptr<const engine::UsageSource> source;  // null: no live usage
  std::function<void()> stop;                         // called on shutdown (may be empty)
  std::string description;                            // for the "serving" log line
  // Node supply for the capacity checks (the cluster client implements both); null: no node
  // source, the checks are off and serve says so at start-up.
  std::shared_ptr<const engine::SupplySource> supply = nullptr;
  // Where quota reservations are shared with the other replicas; null: none (one replica's
  // view only, see server/quota_reservation.hpp).
  std::shared_ptr<engine::ReservationStore> reservations = nullptr;
};

// Starts a usage source once policies are loaded. Throws std::exception for configuration
// errors (unreadable kubeconfig, missing context...): a one-line startup error, exit code 1.
using UsageFactory = std::function<UsageHookup(const UsageContext&)>;

struct ServeRuntime {
  // Live cluster state (namespaces, GPU usage). Null: usage is an empty snapshot with
  // available=false and readiness does not wait for a sync.
  std::shared_ptr<const engine::UsageSource> usage;
  // Used instead of `usage` when set: the source is started after the policies have loaded,
  // and stopped after the server has drained.
  UsageFactory usageFactory;
  std::FILE* log = stdout;      // JSON lines
  std::FILE* console = stderr;  // the startup banner and startup errors
};

// Returns the process exit status: 0 after a graceful shutdown, 1 on a startup error.
int runServe(const ServeConfig& config, const ServeRuntime& runtime = {});

}  // namespace gpua::server
