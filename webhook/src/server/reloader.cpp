#include "server/reloader.hpp"

#include <ctime>
#include <utility>

#include "engine/core/text.hpp"
#include "native/compile.hpp"
#include "policy/rollout_summary.hpp"
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
      loadedPolicy_(policy::readPolicyPaths(targets_.policyPaths).fingerprint()),
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
  try {
    pollPolicies();
  } catch (const std::exception& e) {  // the loader reports errors as values; this is the edge
    countFailure("policy", e.what());
  } catch (...) {  // an exception leaving the polling thread would terminate the server
    countFailure("policy", "unknown exception");
  }
  try {
    if (certWatcher_.changed()) reloadCertificates();
  } catch (const std::exception& e) {
    targets_.logger->error("certificate reload failed; keeping the current certificate",
                           {{"error", e.what()}});
  } catch (...) {
    targets_.logger->error("certificate reload failed; keeping the current certificate");
  }
}

void Reloader::pollPolicies() {
  std::lock_guard lock(policyMutex_);
  const policy::PolicyFiles files = policy::readPolicyPaths(targets_.policyPaths);
  const uint64_t seen = files.fingerprint();
  if (seen == loadedPolicy_) {
    pendingPolicy_.reset();  // changed and changed back: nothing to load
    return;
  }
  if (pendingPolicy_ != seen) {  // new bytes: load them if the next poll sees them again
    pendingPolicy_ = seen;
    return;
  }
  pendingPolicy_.reset();
  loadAndPublish(files);
}

void Reloader::countFailure(std::string_view what, std::string_view error) {
  targets_.metrics->policyReloads.with({"error"}).inc();
  targets_.metrics->policyLastReloadSuccess.set(0);
  targets_.logger->error("policy reload failed; keeping the last good policy",
                         {{"error", error}, {"stage", what}});
}

void Reloader::publishPolicy(const ReloadTargets& t,
                             std::shared_ptr<const policy::PolicySet> next) {
  if (t.nativeOffload) next = withOffloadedRules(t, *next);
  const auto previous = t.policy->get();
  if (previous && previous->revision != next->revision)
    t.metrics->policyRevision.remove({previous->revision});  // one series, not one per revision
  t.metrics->policyRevision.with({next->revision}).set(1);
  t.metrics->policyLastReloadSuccess.set(1);
  t.policy->set(std::move(next));
}

// Offload mode: the rules this policy's compiled form enforces (none when it does not compile:
// then the webhook keeps them all).
std::shared_ptr<const policy::PolicySet> Reloader::withOffloadedRules(
    const ReloadTargets& t, const policy::PolicySet& policy) {
  auto out = std::make_shared<policy::PolicySet>(policy);
  std::vector<std::string> names;
  for (const auto& r : native::compileNative(policy).rules)
    if (r.compiled) {
      out->offloadedRules.insert(r.rule);
      names.push_back(r.rule);
    }
  const std::string offloadedList = names.empty() ? std::string("none") : engine::text::join(names);
  if (t.logger)
    t.logger->info("native offload: the apiserver's compiled policies enforce these rules",
                   {{"policy_revision", policy.revision}, {"rules", offloadedList}});
  return out;
}

void Reloader::publishCertificate(const ReloadTargets& t, const TlsLoadResult& loaded) {
  publishLoadedCertificate(t, loaded, std::time(nullptr));
}

std::vector<policy::Diagnostic> Reloader::reloadPolicies() {
  try {
    std::lock_guard lock(policyMutex_);
    pendingPolicy_.reset();
    return loadAndPublish(policy::readPolicyPaths(targets_.policyPaths));
  } catch (const std::exception& e) {
    countFailure("policy", e.what());
    policy::Diagnostic d;
    d.message = std::string("policy reload failed: ") + e.what();
    return {d};
  }
}

std::vector<policy::Diagnostic> Reloader::loadAndPublish(const policy::PolicyFiles& files) {
  loadedPolicy_ = files.fingerprint();  // even on failure: retry when the bytes change
  auto loaded = policy::loadPolicyFiles(files);
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
  const auto previous = targets_.policy->get();
  if (auto why = previous ? policy::suspectRolloutLoss(*previous, *loaded.policy) : std::string();
      !why.empty()) {
    targets_.metrics->policyReloads.with({"suspect"}).inc();
    targets_.metrics->policyLastReloadSuccess.set(0);
    log.error("policy reload held back as suspect; keeping the last good policy",
              {{"error", why},
               {"revision", loaded.policy->revision},
               {"keptRevision", previous->revision}});
    policy::Diagnostic d;
    d.message = std::move(why);
    return {d};
  }
  targets_.metrics->policyReloads.with({"success"}).inc();
  log.info("policy reloaded", {{"policy", loaded.policy->name},
                               {"revision", loaded.policy->revision},
                               {"files", loaded.policy->sourceFiles}});
  logModeChanges(previous.get(), *loaded.policy);
  publishPolicy(targets_, loaded.policy);
  return {};
}

void Reloader::logModeChanges(const policy::PolicySet* before, const policy::PolicySet& after) {
  if (before == nullptr) return;
  const auto was = policy::describeRollout(*before);
  const auto now = policy::describeRollout(after);
  if (was == now) return;
  targets_.logger->warn("policy reload changes the enforcement mode of namespaces",
                        {{"revision", after.revision},
                         {"previousRevision", before->revision},
                         {"before", was},
                         {"after", now}});
}

std::string Reloader::reloadCertificates() {
  return reloadCertificate(targets_, std::time(nullptr));
}

}  // namespace gpua::server
