// What /readyz reports: ready only when policies and certificates are loaded, the served
// certificate has not expired (every handshake would fail), cluster state (when there is a
// usage source) has synced or may be done without, and the process is not shutting down.
#pragma once

#include <atomic>
#include <chrono>
#include <ctime>
#include <functional>
#include <memory>
#include <string>

#include "engine/context/usage.hpp"
#include "server/tls_context.hpp"

namespace gpua::server {

class Readiness {
 public:
  // `serviceDnsName` (may be empty): the name the apiserver verifies; a served certificate
  // without it makes the replica unready, like an expired one (every verified handshake fails).
  explicit Readiness(std::shared_ptr<const engine::UsageSource> usage = nullptr,
                     std::shared_ptr<const TlsContextStore> tls = nullptr,
                     std::string serviceDnsName = {})
      : usage_(std::move(usage)),
        tls_(std::move(tls)),
        serviceDnsName_(std::move(serviceDnsName)) {}

  // Unsynced cluster state stops blocking readiness at `graceEnds` while `quotasFailOpen`
  // holds: a policy that admits GPU pods with a warning when usage is unknown must not keep
  // the Service without endpoints (and the fail-closed pod webhook refusing every pod) because
  // the pod list is forbidden or the API unreachable. A fail-closed policy keeps waiting.
  void setUnsyncedGrace(std::function<bool()> quotasFailOpen,
                        std::chrono::steady_clock::time_point graceEnds) {
    quotasFailOpen_ = std::move(quotasFailOpen);
    graceEnds_ = graceEnds;
  }

  void setPoliciesLoaded(bool v) { policies_ = v; }
  void setCertificatesLoaded(bool v) { certificates_ = v; }
  void setShuttingDown() { shuttingDown_ = true; }
  bool shuttingDown() const { return shuttingDown_; }

  // Empty when ready; otherwise the failing checks, comma-separated.
  std::string problems() const {
    std::string out;
    auto add = [&out](const char* p) { out += (out.empty() ? "" : ", ") + std::string(p); };
    if (shuttingDown_) add("shutting down");
    if (!policies_) add("policies not loaded");
    if (!certificates_) add("certificates not loaded");
    if (tls_) {
      const auto served = tls_->validity();
      if (served.notAfterUnix <= std::time(nullptr)) add("serving certificate expired");
      if (!serviceDnsName_.empty() && !sansCover(served.dnsNames, serviceDnsName_))
        add("serving certificate lacks the service name (--service-dns-name)");
    }
    if (usage_ && !usage_->synced() && !unsyncedAllowed()) add("cluster state not synced");
    return out;
  }

 private:
  bool unsyncedAllowed() const {
    return quotasFailOpen_ && std::chrono::steady_clock::now() >= graceEnds_ && quotasFailOpen_();
  }

  std::function<bool()> quotasFailOpen_;  // set before serving, read-only afterwards
  std::chrono::steady_clock::time_point graceEnds_{};
  std::shared_ptr<const engine::UsageSource> usage_;
  std::shared_ptr<const TlsContextStore> tls_;
  std::string serviceDnsName_;
  std::atomic<bool> policies_{false};
  std::atomic<bool> certificates_{false};
  std::atomic<bool> shuttingDown_{false};
};

}  // namespace gpua::server
