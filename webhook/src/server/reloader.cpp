#include "server/reloader.hpp"

#include <ctime>
#include <utility>

#include "server/certificate_reload.hpp"

namespace gpua::server {

namespace {

std::vector<std::string> certPaths(const TlsFiles& f) {
  std::vector<std::string> paths{f.cert, f.key};
  if (!f.clientCa.empty()) paths.push_back(f.clientCa);
  return paths;
}

}  // namespace

Reloader::Reloader(ReloadTargets targets, std::chrono::milliseconds interval)
    : targets_(std::move(targets)),
      interval_(interval),
      policyWatcher_(targets_.policyPaths),
      certWatcher_(certPaths(targets_.tls)) {}

Reloader::~Reloader() {
  stop();
}

void Reloader::start() {
  thread_ = std::thread([this] {
    std::unique_lock lock(mutex_);
    for (;;) {
      wake_.wait_for(lock, interval_, [this] { return stopping_ || reloadRequested_; });
      if (stopping_) return;
      const bool now = std::exchange(reloadRequested_, false);
      lock.unlock();
      if (now) {
        reloadPolicies();
        reloadCertificates();
      } else {
        pollOnce();
      }
      lock.lock();
    }
  });
}

void Reloader::requestReload() {
  {
    std::lock_guard lock(mutex_);
    reloadRequested_ = true;
  }
  wake_.notify_all();
}

void Reloader::stop() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void Reloader::pollOnce() {
  if (policyWatcher_.changed()) reloadPolicies();
  if (certWatcher_.changed()) reloadCertificates();
}

void Reloader::publishPolicy(const ReloadTargets& t,
                             std::shared_ptr<const policy::PolicySet> next) {
  const auto previous = t.policy->get();
  if (previous && previous->revision != next->revision)
    t.metrics->policyRevision.with({previous->revision}).set(0);
  t.metrics->policyRevision.with({next->revision}).set(1);
  t.metrics->policyLastReloadSuccess.set(1);
  t.policy->set(std::move(next));
}

void Reloader::publishCertificate(const ReloadTargets& t, const TlsLoadResult& loaded) {
  publishLoadedCertificate(t, loaded, std::time(nullptr));
}

std::vector<policy::Diagnostic> Reloader::reloadPolicies() {
  auto loaded = policy::loadPolicyPaths(targets_.policyPaths);
  auto& log = *targets_.logger;
  if (!loaded.ok()) {
    targets_.metrics->policyReloads.with({"error"}).inc();
    targets_.metrics->policyLastReloadSuccess.set(0);
    const auto kept = targets_.policy->get();
    const std::string keptRevision = kept ? kept->revision : std::string();
    for (const auto& d : loaded.errors) {
      const std::string message = d.format();
      log.error(
          "policy reload failed; keeping the last good policy",
          {{"error", message}, {"file", d.file}, {"line", d.line}, {"keptRevision", keptRevision}});
    }
    if (loaded.errors.empty()) log.error("policy reload failed; keeping the last good policy");
    return loaded.errors;
  }
  targets_.metrics->policyReloads.with({"success"}).inc();
  log.info("policy reloaded", {{"policy", loaded.policy->name},
                               {"revision", loaded.policy->revision},
                               {"files", loaded.policy->sourceFiles}});
  publishPolicy(targets_, loaded.policy);
  return {};
}

std::string Reloader::reloadCertificates() {
  return reloadCertificate(targets_, std::time(nullptr));
}

}  // namespace gpua::server
