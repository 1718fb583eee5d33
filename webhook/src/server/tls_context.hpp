// Server TLS settings: TLS 1.2/1.3 only, ECDHE + AES-GCM/ChaCha20 for 1.2, ALPN http/1.1 only,
// server-side session cache and tickets for resumption, optional client certificate checks.
// Contexts are immutable once built; rotation builds a new one and swaps it in a store, so new
// handshakes use the new certificate while open connections keep theirs.
#pragma once

#include <boost/asio/ssl/context.hpp>

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace gpua::server {

namespace ssl = boost::asio::ssl;

struct TlsFiles {
  std::string cert;      // PEM chain, leaf first
  std::string key;       // PEM private key
  std::string clientCa;  // PEM CA bundle; empty = no client certificate verification
};

struct TlsLoadResult {
  std::shared_ptr<ssl::context> context;  // null when `error` is set
  std::string error;                      // one line naming the file and the problem
  int64_t notBeforeUnix = 0;              // leaf certificate validity start (seconds since epoch)
  int64_t notAfterUnix = 0;               // leaf certificate expiry (seconds since epoch)
  std::string serialHex;                  // leaf certificate serial, for logs
  std::vector<std::string> dnsNames;      // the leaf's DNS subjectAltNames
};

// Reads the files and builds a server context. Never throws on bad input.
TlsLoadResult loadTlsContext(const TlsFiles& files);

// The TLS 1.2 cipher list the server offers.
const char* tls12CipherList();
// The TLS 1.3 suites, in the server's order: AES-128-GCM first, as for TLS 1.2 (Mozilla's
// configurations list it first; OpenSSL's default puts AES-256-GCM first, which with the
// server's preference chose it for every client at about 10% more cipher work per byte).
const char* tls13CipherSuites();

// The served certificate's validity, for rotation checks and /readyz.
struct CertificateValidity {
  int64_t notBeforeUnix = 0;
  int64_t notAfterUnix = 0;
  std::vector<std::string> dnsNames;  // the leaf's DNS subjectAltNames
  bool validAt(int64_t unixSeconds) const {
    return notBeforeUnix <= unixSeconds && unixSeconds < notAfterUnix;
  }
};

// Holds the context new connections use and the validity of its certificate.
class TlsContextStore {
 public:
  explicit TlsContextStore(std::shared_ptr<ssl::context> initial) : current_(std::move(initial)) {}
  std::shared_ptr<ssl::context> current() const {
    std::lock_guard lock(mutex_);
    return current_;
  }
  void set(std::shared_ptr<ssl::context> next) {
    std::lock_guard lock(mutex_);
    current_ = std::move(next);
  }
  void set(const TlsLoadResult& loaded) {
    std::lock_guard lock(mutex_);
    current_ = loaded.context;
    validity_ = {loaded.notBeforeUnix, loaded.notAfterUnix, loaded.dnsNames};
  }
  CertificateValidity validity() const {
    std::lock_guard lock(mutex_);
    return validity_;
  }

 private:
  mutable std::mutex mutex_;
  std::shared_ptr<ssl::context> current_;
  CertificateValidity validity_;
};

// Why `candidate` must not replace the certificate being served at `now`, or "" when it may:
// while the served one is valid, a replacement outside its own validity window (expired, not
// yet valid: a clock or issuer mistake) would fail every new handshake, so it is refused; so is
// one whose DNS names lack `serviceDnsName` (when set) while the served one has it: the
// apiserver verifies that name, so every admission call would fail.
std::string refuseReplacement(const CertificateValidity& served, const TlsLoadResult& candidate,
                              int64_t now, const std::string& serviceDnsName = {});

// Whether the DNS SANs cover `name` (exactly or by a "*." wildcard of one label).
bool sansCover(const std::vector<std::string>& dnsNames, const std::string& name);

}  // namespace gpua::server
