// What /readyz reports: ready only when policies and certificates are loaded, the served
// certificate has not expired (every handshake would fail), cluster state (when there is a
// usage source) has synced, and the process is not shutting down.
#pragma once

#include <atomic>
#include <ctime>
#include <memory>
#include <string>

#include "engine/usage.hpp"
#include "server/tls_context.hpp"

namespace gpua::server {

class Readiness {
 public:
  explicit Readiness(std::shared_ptr<const engine::UsageSource> usage = nullptr,
                     std::shared_ptr<const TlsContextStore> tls = nullptr)
      : usage_(std::move(usage)), tls_(std::move(tls)) {}

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
    if (tls_ && tls_->validity().notAfterUnix <= std::time(nullptr))
      add("serving certificate expired");
    if (usage_ && !usage_->synced()) add("cluster state not synced");
    return out;
  }

 private:
  std::shared_ptr<const engine::UsageSource> usage_;
  std::shared_ptr<const TlsContextStore> tls_;
  std::atomic<bool> policies_{false};
  std::atomic<bool> certificates_{false};
  std::atomic<bool> shuttingDown_{false};
};

}  // namespace gpua::server
