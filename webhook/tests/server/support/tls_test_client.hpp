// A small synchronous HTTPS/1.1 client for tests: verifies the server chain against a CA file
// and the host name (SNI + RFC 2818 check), keeps the connection for several requests, and can
// send raw bytes to exercise bad framing. Socket timeouts keep a broken server from hanging a
// test.
#pragma once

#include <openssl/bn.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <sys/socket.h>
#include <sys/time.h>

#include <boost/asio/connect.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>

#include <chrono>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>

namespace gpua::testing {

namespace net = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
namespace ssl = net::ssl;

inline constexpr const char* kServiceHost = "gpu-admission.gpu-admission.svc";

struct ClientResponse {
  int status = 0;
  std::string body;
  std::string contentType;
  bool keepAlive = false;
  std::map<std::string, std::string> headers;
};

struct ClientOptions {
  std::string caFile;
  std::string host = kServiceHost;  // SNI and verified name
  std::string clientCert, clientKey;
  std::chrono::milliseconds ioTimeout{5000};
  std::string alpn = "http/1.1";  // offered protocols, comma-free single entry; empty = none
  ssl::context::method method = ssl::context::tls_client;
};

class TlsTestClient {
 public:
  TlsTestClient(uint16_t port, ClientOptions options)
      : options_(std::move(options)), ctx_(options_.method) {
    ctx_.load_verify_file(options_.caFile);
    ctx_.set_verify_mode(ssl::verify_peer);
    ctx_.set_verify_callback(ssl::host_name_verification(options_.host));
    if (!options_.clientCert.empty()) {
      ctx_.use_certificate_chain_file(options_.clientCert);
      ctx_.use_private_key_file(options_.clientKey, ssl::context::pem);
    }
    // The SSL object copies the context's settings when it is created: configure first.
    stream_.emplace(ioc_, ctx_);
    if (!options_.alpn.empty()) {
      std::string wire(1, static_cast<char>(options_.alpn.size()));
      wire += options_.alpn;
      SSL_set_alpn_protos(stream_->native_handle(),
                          reinterpret_cast<const unsigned char*>(wire.data()),
                          static_cast<unsigned>(wire.size()));
    }
    SSL_set_tlsext_host_name(stream_->native_handle(), options_.host.c_str());
    net::ip::tcp::endpoint ep(net::ip::make_address("127.0.0.1"), port);
    beast::get_lowest_layer(*stream_).connect(ep);
    setSocketTimeouts();
    stream_->handshake(ssl::stream_base::client);
  }

  ClientResponse request(const std::string& method, const std::string& target,
                         const std::string& body = {},
                         const std::string& contentType = "application/json",
                         bool keepAlive = true) {
    http::request<http::string_body> req(http::string_to_verb(method), target, 11);
    req.set(http::field::host, options_.host);
    if (!contentType.empty()) req.set(http::field::content_type, contentType);
    req.body() = body;
    req.keep_alive(keepAlive);
    req.prepare_payload();
    http::write(*stream_, req);
    return read();
  }

  // Writes bytes as they are (for malformed requests, partial headers, slow clients).
  void writeRaw(const std::string& bytes) { net::write(*stream_, net::buffer(bytes)); }

  ClientResponse read() {
    http::response_parser<http::string_body> parser;
    parser.body_limit(64u << 20);
    http::read(*stream_, buffer_, parser);
    const auto& res = parser.get();
    ClientResponse out;
    out.status = static_cast<int>(res.result_int());
    out.body = res.body();
    out.contentType = std::string(res[http::field::content_type]);
    out.keepAlive = res.keep_alive();
    for (const auto& f : res) out.headers[std::string(f.name_string())] = std::string(f.value());
    return out;
  }

  // True when the server closed the connection (a read returns EOF or an error).
  bool closedByPeer() {
    char c;
    beast::error_code ec;
    stream_->read_some(net::buffer(&c, 1), ec);
    return static_cast<bool>(ec);
  }

  std::string peerSerialHex() {
    X509* cert = SSL_get1_peer_certificate(stream_->native_handle());
    if (!cert) return {};
    std::string out;
    if (BIGNUM* bn = ASN1_INTEGER_to_BN(X509_get0_serialNumber(cert), nullptr)) {
      char* hex = BN_bn2hex(bn);
      out = hex;
      OPENSSL_free(hex);
      BN_free(bn);
    }
    X509_free(cert);
    return out;
  }

  std::string negotiatedAlpn() {
    const unsigned char* p = nullptr;
    unsigned len = 0;
    SSL_get0_alpn_selected(stream_->native_handle(), &p, &len);
    return std::string(reinterpret_cast<const char*>(p), len);
  }

  std::string protocolVersion() { return SSL_get_version(stream_->native_handle()); }

 private:
  void setSocketTimeouts() {
    timeval tv{};
    tv.tv_sec = options_.ioTimeout.count() / 1000;
    tv.tv_usec = static_cast<suseconds_t>((options_.ioTimeout.count() % 1000) * 1000);
    const int fd = beast::get_lowest_layer(*stream_).socket().native_handle();
    ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    ::setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
  }

  ClientOptions options_;
  net::io_context ioc_;
  ssl::context ctx_;
  std::optional<beast::ssl_stream<beast::tcp_stream>> stream_;
  beast::flat_buffer buffer_;
};

// Runs certs/gen-dev-certs.sh into `dir`; throws when it fails.
inline void generateDevCerts(const std::string& script, const std::string& dir) {
  const std::string cmd = "bash '" + script + "' '" + dir + "' 2>/dev/null";
  if (std::system(cmd.c_str()) != 0) throw std::runtime_error("gen-dev-certs.sh failed: " + cmd);
}

}  // namespace gpua::testing
