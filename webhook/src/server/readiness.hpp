// What /readyz reports: ready only when policies and certificates are loaded, cluster state
// (when there is a usage source) has synced, and the process is not shutting down.
#pragma once

#include <atomic>
#include <memory>
#include <string>

#include "engine/usage.hpp"

namespace gpua::server {

class Readiness {
 public:
  explicit Readiness(std::shared_ptr<const engine::UsageSource> usage = nullptr)
      : usage_(std::move(usage)) {}

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
    if (usage_ && !usage_->synced()) add("cluster state not synced");
    return out;
  }

 private:
  std::shared_ptr<const engine::UsageSource> usage_;
  std::atomic<bool> policies_{false};
  std::atomic<bool> certificates_{false};
  std::atomic<bool> shuttingDown_{false};
};

}  // namespace gpua::server
