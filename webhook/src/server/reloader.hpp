// Hot reload: polls the policy paths and the certificate files and, when their content
// changes, loads them again. A policy that fails to load keeps the last good one serving (with
// a metric and a file:line log line per error); a certificate pair that fails to load keeps
// the old context. Successful loads are swapped in whole, so requests in flight and open
// connections are never disturbed; new TLS handshakes pick up the new certificate.
//
// Policies load only once their bytes have been the same for two polls in a row, so a file
// caught half-written (which may still be valid YAML) is not loaded; and the bytes compared
// next time are the ones that were loaded, so a rewrite racing a load is loaded too. No
// exception escapes a poll or a reload: it is logged and counted as a failed reload.
#pragma once

#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "policy/loader.hpp"
#include "server/file_watcher.hpp"
#include "server/snapshot.hpp"
#include "server/tls_context.hpp"
#include "server/webhook_metrics.hpp"
#include "telemetry/json_logger.hpp"

namespace gpua::server {

struct ReloadTargets {
  std::vector<std::string> policyPaths;
  TlsFiles tls;
  std::shared_ptr<Snapshot<policy::PolicySet>> policy;
  std::shared_ptr<TlsContextStore> tlsStore;
  WebhookMetrics* metrics = nullptr;
  telemetry::JsonLogger* logger = nullptr;
  std::string serviceDnsName;  // checked against the certificate's SANs ("" = not checked)
  bool nativeOffload = false;  // each published policy leaves its compiled rules to the apiserver
};

class Reloader {
 public:
  Reloader(ReloadTargets targets, std::chrono::milliseconds interval);
  ~Reloader();  // stops the polling thread
  Reloader(const Reloader&) = delete;
  Reloader& operator=(const Reloader&) = delete;

  void start();
  void stop();

  // One polling round (the thread calls it every interval; tests may call it directly).
  void pollOnce();

  // Asks the polling thread to load policies and certificates now, changed or not (SIGHUP).
  // Safe from any thread, including a signal handler's.
  void requestReload();

  // Loads policies now (no stability wait) and publishes the result. Returns the errors (empty
  // on success).
  std::vector<policy::Diagnostic> reloadPolicies();
  // Loads the certificate files now; returns the error (empty on success).
  std::string reloadCertificates();

  // Publishes a freshly loaded policy set and its metrics (also used for the startup load).
  static void publishPolicy(const ReloadTargets& targets,
                            std::shared_ptr<const policy::PolicySet> next);
  static void publishCertificate(const ReloadTargets& targets, const TlsLoadResult& loaded);

 private:
  void pollPolicies();
  // Loads and publishes exactly `files`; policyMutex_ held.
  std::vector<policy::Diagnostic> loadAndPublish(const policy::PolicyFiles& files);
  void logModeChanges(const policy::PolicySet* before, const policy::PolicySet& after);
  static std::shared_ptr<const policy::PolicySet> withOffloadedRules(
      const ReloadTargets& t, const policy::PolicySet& policy);
  void countFailure(std::string_view what, std::string_view error);

  ReloadTargets targets_;
  std::chrono::milliseconds interval_;
  std::mutex policyMutex_;     // one policy read-compare-load at a time (poll or "reload now")
  uint64_t loadedPolicy_ = 0;  // fingerprint of the bytes last handed to a load
  std::optional<uint64_t> pendingPolicy_;  // bytes seen changed on the last poll, not loaded yet
  FileWatcher certWatcher_;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stopping_ = false;
  bool reloadRequested_ = false;
  std::thread thread_;
};

}  // namespace gpua::server
