// Loading a certificate pair for serving, at start-up and on rotation: a pair that fails to
// load, or that would fail every handshake while the served one still works (expired, not
// yet valid), is refused and the served certificate is kept. Either way a log line and the
// certificate metrics say what happened.
#pragma once

#include <cstdint>
#include <string>

#include "server/reloader.hpp"

namespace gpua::server {

// Loads the files of `t.tls`, checks them against the served certificate at `now` and swaps
// them in. Returns the error (empty on success).
std::string reloadCertificate(const ReloadTargets& t, int64_t now);

// Serves `loaded` (already checked) and updates the certificate metrics.
void publishLoadedCertificate(const ReloadTargets& t, const TlsLoadResult& loaded, int64_t now);

// Logs a warning when the certificate's DNS SANs lack the service name the apiserver verifies
// (<service>.<namespace>.svc, without a CN fallback): every admission call would then fail.
void warnIfServiceNameMissing(const ReloadTargets& t, const TlsLoadResult& loaded);

}  // namespace gpua::server
