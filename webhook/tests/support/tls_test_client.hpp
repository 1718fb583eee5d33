// A small synchronous HTTPS/1.1 client for tests: verifies the server chain against a CA file
// and the host name (SNI + RFC 2818 check), keeps the connection for several requests, and can
// send raw bytes to exercise bad framing. Socket timeouts keep a broken server from hanging a
// test. Beast stays in tls_test_client.cpp (compiled once) so that the many test files that use
// the client do not each instantiate Beast's templates.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>

namespace gpua::testing {

inline constexpr const char* kServiceHost = "gpu-admission.gpu-admission.svc";

struct ClientResponse {
  int status = 0;
  int version = 0;  // 11 for HTTP/1.1
  std::string body;
  std::string contentType;
  bool keepAlive = false;
  std::map<std::string, std::string> headers;
};

enum class ClientTlsVersion { Any, Tls12Only };

struct ClientOptions {
  std::string caFile;
  std::string host = kServiceHost;  // SNI and verified name
  std::string clientCert, clientKey;
  std::chrono::milliseconds ioTimeout{5000};
  std::string alpn = "http/1.1";  // offered protocols, comma-free single entry; empty = none
  ClientTlsVersion tlsVersion = ClientTlsVersion::Any;
  bool verifyPeer = true;  // false: like a kubelet HTTPS probe, which does not verify
};

class TlsTestClient {
 public:
  // Connects to 127.0.0.1:port and completes the TLS handshake; throws on failure.
  TlsTestClient(uint16_t port, ClientOptions options);
  ~TlsTestClient();
  TlsTestClient(const TlsTestClient&) = delete;
  TlsTestClient& operator=(const TlsTestClient&) = delete;

  ClientResponse request(const std::string& method, const std::string& target,
                         const std::string& body = {},
                         const std::string& contentType = "application/json",
                         bool keepAlive = true);

  // Writes bytes as they are (for malformed requests, partial headers, slow clients).
  void writeRaw(const std::string& bytes);

  ClientResponse read();

  // True when the server closed the connection (a read returns EOF or an error).
  bool closedByPeer();

  std::string peerSerialHex();
  std::string negotiatedAlpn();
  std::string protocolVersion();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// Runs certs/gen-dev-certs.sh into `dir`; throws when it fails.
inline void generateDevCerts(const std::string& script, const std::string& dir) {
  const std::string cmd = "bash '" + script + "' '" + dir + "' 2>/dev/null";
  if (std::system(cmd.c_str()) != 0) throw std::runtime_error("gen-dev-certs.sh failed: " + cmd);
}

}  // namespace gpua::testing
