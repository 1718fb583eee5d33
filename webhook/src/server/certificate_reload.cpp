#include "server/certificate_reload.hpp"

namespace gpua::server {

void warnIfServiceNameMissing(const ReloadTargets& t, const TlsLoadResult& loaded) {
  if (t.serviceDnsName.empty() || sansCover(loaded.dnsNames, t.serviceDnsName)) return;
  t.logger->warn(
      "the certificate's DNS names do not include the service name: the apiserver will refuse "
      "it",
      {{"serviceDnsName", t.serviceDnsName},
       {"dnsNames", loaded.dnsNames},
       {"serial", loaded.serialHex}});
}

void publishLoadedCertificate(const ReloadTargets& t, const TlsLoadResult& loaded, int64_t now) {
  t.metrics->certificateExpiry.set(static_cast<double>(loaded.notAfterUnix));
  t.metrics->certificateNotBefore.set(static_cast<double>(loaded.notBeforeUnix));
  t.metrics->certificateLastReloadSuccess.set(static_cast<double>(now));
  t.tlsStore->set(loaded);
}

std::string reloadCertificate(const ReloadTargets& t, int64_t now) {
  auto loaded = loadTlsContext(t.tls);
  std::string error = loaded.error;
  if (loaded.context)
    error = refuseReplacement(t.tlsStore->validity(), loaded, now, t.serviceDnsName);
  if (!error.empty()) {
    t.metrics->certificateReloadFailures.inc();
    t.logger->error("certificate reload failed; keeping the current certificate",
                    {{"error", error}, {"serial", loaded.serialHex}});
    return error;
  }
  t.logger->info("certificate reloaded", {{"serial", loaded.serialHex},
                                          {"notBefore", loaded.notBeforeUnix},
                                          {"notAfter", loaded.notAfterUnix}});
  warnIfServiceNameMissing(t, loaded);
  publishLoadedCertificate(t, loaded, now);
  return {};
}

}  // namespace gpua::server
