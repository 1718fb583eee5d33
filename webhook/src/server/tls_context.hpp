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
  int64_t notAfterUnix = 0;               // leaf certificate expiry (seconds since epoch)
  std::string serialHex;                  // leaf certificate serial, for logs
};

// Reads the files and builds a server context. Never throws on bad input.
TlsLoadResult loadTlsContext(const TlsFiles& files);

// The TLS 1.2 cipher list the server offers (TLS 1.3 uses OpenSSL's AEAD-only defaults).
const char* tls12CipherList();

// Holds the context new connections use.
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

 private:
  mutable std::mutex mutex_;
  std::shared_ptr<ssl::context> current_;
};

}  // namespace gpua::server
