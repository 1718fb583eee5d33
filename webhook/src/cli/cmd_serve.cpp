// `gpu-admission serve`: the admission webhook over TLS. Settings come from flags and
// GPU_ADMISSION_* environment variables (see server/serve_config.hpp and docs/operations.md).
// This is where the server meets the cluster client: server/ and cluster/ do not know each
// other, so the usage source (live watch or fixed files) is chosen and started here.
#include <cstdio>
#include <stdexcept>
#include <string>

#include "cli/command_registry.hpp"
#include "cluster/cluster_usage_source.hpp"
#include "cluster/file_usage_source.hpp"
#include "cluster/reservation_store.hpp"
#include "inventory/usage_file.hpp"
#include "server/serve_app.hpp"
#include "server/serve_config.hpp"

namespace gpua::cli {
namespace {

// The cluster client's log lines join the server's JSON log.
cluster::LogSink logTo(telemetry::JsonLogger& logger) {
  return [&logger](std::string_view level, std::string_view message) {
    const std::initializer_list<telemetry::LogField> fields = {{"component", "cluster"}};
    if (level == "error") {
      logger.error(message, fields);
    } else if (level == "warn") {
      logger.warn(message, fields);
    } else {
      logger.info(message, fields);
    }
  };
}

// The ConfigMap the replicas share quota reservations through: in the webhook's namespace
// (--reservation-namespace, or the pod's own with --in-cluster); none when turned off.
std::shared_ptr<engine::ReservationStore> reservationStore(const server::ServeConfig& config,
                                                           const cluster::ClusterOptions& options) {
  if (!config.quotaReservations) return nullptr;
  if (config.reservationNamespace.empty() && !config.inCluster) return nullptr;
  try {
    const std::string ns = config.reservationNamespace.empty()
                               ? cluster::serviceAccountNamespace(options.serviceAccountDir)
                               : config.reservationNamespace;
    return std::make_shared<cluster::ConfigMapReservationStore>(cluster::apiConfigOf(options), ns);
  } catch (const cluster::ClusterConfigError& e) {
    throw std::runtime_error(std::string("quota reservations: ") + e.what());
  }
}

server::UsageHookup watchCluster(const server::ServeConfig& config,
                                 const server::UsageContext& context) {
  cluster::ClusterOptions options;
  options.kubeconfig = config.kubeconfig;  // empty with --in-cluster: the service account
  options.context = config.kubeContext;
  if (config.quotaUnavailableGrace) options.unavailableGrace = *config.quotaUnavailableGrace;
  options.registry = &context.registry;
  options.log = logTo(context.logger);
  // DRA objects are watched when the policy at start declares spec.dra (the RBAC the kit grants
  // covers them); a reload that adds spec.dra takes effect at the next restart.
  if (const auto policy = context.policy ? context.policy() : nullptr)
    options.watchDra = policy->dra.declared;
  std::shared_ptr<cluster::ClusterUsageSource> source;
  try {
    source = cluster::startClusterUsageSource(options, context.policy);
  } catch (const cluster::ClusterConfigError& e) {
    throw std::runtime_error(std::string("cluster: ") + e.what());  // names the file and key
  }
  const std::string description =
      config.inCluster ? "in-cluster service account" : "kubeconfig " + config.kubeconfig;
  // The same client watches nodes: it is the node source of the capacity checks too.
  return {source, [source] { source->stop(); }, description, source,
          reservationStore(config, options)};
}

server::UsageFactory usageFactory(const server::ServeConfig& config) {
  if (config.watchesCluster())
    return [&config](const server::UsageContext& c) { return watchCluster(config, c); };
  if (!config.usageFiles.empty()) {
    return [&config](const server::UsageContext& c) -> server::UsageHookup {
      try {
        auto source = std::make_shared<cluster::FileUsageSource>(config.usageFiles, c.policy);
        return {source, {}, "fixed usage from " + config.usageFiles.front()};
      } catch (const inventory::UsageFileError& e) {
        throw std::runtime_error(std::string("usage: ") + e.what());  // names the file
      }
    };
  }
  return {};  // no usage: quotas follow the policy's quotaUnavailable
}

int runServeCommand(int argc, char** argv) {
  const auto parsed = server::parseServeConfig(argc, argv, server::processEnv());
  if (!parsed.config) {
    std::fprintf(stderr, "gpu-admission serve: error: %s\n", parsed.error.c_str());
    return 1;
  }
  const auto& config = *parsed.config;
  if (config.help) {
    std::fputs(server::serveUsage().c_str(), stdout);
    return 0;
  }
  server::ServeRuntime runtime;
  runtime.usageFactory = usageFactory(config);
  return server::runServe(config, runtime);
}

const CommandRegistrar kServe{{"serve", "run the admission webhook over TLS", &runServeCommand}};

}  // namespace
}  // namespace gpua::cli
