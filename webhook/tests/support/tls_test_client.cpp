#include "support/tls_test_client.hpp"

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
#include <optional>

namespace gpua::testing {

namespace net = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
namespace ssl = net::ssl;

struct TlsTestClient::Impl {
  explicit Impl(ClientOptions o)
      : options(std::move(o)),
        ctx(options.tlsVersion == ClientTlsVersion::Tls12Only ? ssl::context::tlsv12_client
                                                              : ssl::context::tls_client) {}

  void setSocketTimeouts() {
    timeval tv{};
    tv.tv_sec = options.ioTimeout.count() / 1000;
    tv.tv_usec = static_cast<suseconds_t>((options.ioTimeout.count() % 1000) * 1000);
    const int fd = beast::get_lowest_layer(*stream).socket().native_handle();
    ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    ::setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
  }

  ClientOptions options;
  net::io_context ioc;
  ssl::context ctx;
  std::optional<beast::ssl_stream<beast::tcp_stream>> stream;
  beast::flat_buffer buffer;
};

TlsTestClient::TlsTestClient(uint16_t port, ClientOptions options)
    : impl_(std::make_unique<Impl>(std::move(options))) {
  auto& i = *impl_;
  if (i.options.verifyPeer) {
    i.ctx.load_verify_file(i.options.caFile);
    i.ctx.set_verify_mode(ssl::verify_peer);
    i.ctx.set_verify_callback(ssl::host_name_verification(i.options.host));
  } else {
    i.ctx.set_verify_mode(ssl::verify_none);
  }
  if (!i.options.clientCert.empty()) {
    i.ctx.use_certificate_chain_file(i.options.clientCert);
    i.ctx.use_private_key_file(i.options.clientKey, ssl::context::pem);
  }
  // The SSL object copies the context's settings when it is created: configure first.
  i.stream.emplace(i.ioc, i.ctx);
  if (!i.options.alpn.empty()) {
    std::string wire(1, static_cast<char>(i.options.alpn.size()));
    wire += i.options.alpn;
    SSL_set_alpn_protos(i.stream->native_handle(),
                        reinterpret_cast<const unsigned char*>(wire.data()),
                        static_cast<unsigned>(wire.size()));
  }
  SSL_set_tlsext_host_name(i.stream->native_handle(), i.options.host.c_str());
  net::ip::tcp::endpoint ep(net::ip::make_address("127.0.0.1"), port);
  beast::get_lowest_layer(*i.stream).connect(ep);
  i.setSocketTimeouts();
  i.stream->handshake(ssl::stream_base::client);
}

TlsTestClient::~TlsTestClient() = default;

ClientResponse TlsTestClient::request(const std::string& method, const std::string& target,
                                      const std::string& body, const std::string& contentType,
                                      bool keepAlive) {
  http::request<http::string_body> req(http::string_to_verb(method), target, 11);
  req.set(http::field::host, impl_->options.host);
  if (!contentType.empty()) req.set(http::field::content_type, contentType);
  req.body() = body;
  req.keep_alive(keepAlive);
  req.prepare_payload();
  http::write(*impl_->stream, req);
  return read();
}

void TlsTestClient::writeRaw(const std::string& bytes) {
  net::write(*impl_->stream, net::buffer(bytes));
}

ClientResponse TlsTestClient::read() {
  http::response_parser<http::string_body> parser;
  parser.body_limit(64u << 20);
  http::read(*impl_->stream, impl_->buffer, parser);
  const auto& res = parser.get();
  ClientResponse out;
  out.status = static_cast<int>(res.result_int());
  out.version = static_cast<int>(res.version());
  out.body = res.body();
  out.contentType = std::string(res[http::field::content_type]);
  out.keepAlive = res.keep_alive();
  for (const auto& f : res) out.headers[std::string(f.name_string())] = std::string(f.value());
  return out;
}

bool TlsTestClient::closedByPeer() {
  char c;
  beast::error_code ec;
  impl_->stream->read_some(net::buffer(&c, 1), ec);
  return static_cast<bool>(ec);
}

std::string TlsTestClient::peerSerialHex() {
  X509* cert = SSL_get1_peer_certificate(impl_->stream->native_handle());
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

std::string TlsTestClient::negotiatedAlpn() {
  const unsigned char* p = nullptr;
  unsigned len = 0;
  SSL_get0_alpn_selected(impl_->stream->native_handle(), &p, &len);
  return std::string(reinterpret_cast<const char*>(p), len);
}

std::string TlsTestClient::protocolVersion() {
  return SSL_get_version(impl_->stream->native_handle());
}

}  // namespace gpua::testing
