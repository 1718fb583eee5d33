#include "server/tls_context.hpp"

#include <openssl/asn1.h>
#include <openssl/bn.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include <ctime>
#include <fstream>
#include <iterator>

namespace gpua::server {

namespace {

constexpr unsigned char kSessionIdContext[] = "gpu-admission";

bool readFile(const std::string& path, std::string& out, std::string& error) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    error = "cannot read " + path;
    return false;
  }
  out.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  if (out.empty()) {
    error = path + " is empty";
    return false;
  }
  return true;
}

// Offers http/1.1 only: the apiserver must never negotiate h2 with a webhook.
int selectAlpn(SSL*, const unsigned char** out, unsigned char* outlen, const unsigned char* in,
               unsigned int inlen, void*) {
  static const unsigned char kHttp11[] = {8, 'h', 't', 't', 'p', '/', '1', '.', '1'};
  unsigned char* selected = nullptr;
  if (SSL_select_next_proto(&selected, outlen, kHttp11, sizeof kHttp11, in, inlen) !=
      OPENSSL_NPN_NEGOTIATED)
    return SSL_TLSEXT_ERR_NOACK;  // no common protocol: proceed without ALPN
  *out = selected;
  return SSL_TLSEXT_ERR_OK;
}

void applyProtocolPolicy(SSL_CTX* ctx) {
  SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION);
  SSL_CTX_set_max_proto_version(ctx, TLS1_3_VERSION);
  SSL_CTX_set_options(
      ctx, SSL_OP_NO_COMPRESSION | SSL_OP_NO_RENEGOTIATION | SSL_OP_CIPHER_SERVER_PREFERENCE);
  SSL_CTX_set_cipher_list(ctx, tls12CipherList());
  SSL_CTX_set_ciphersuites(ctx, tls13CipherSuites());
  SSL_CTX_set_alpn_select_cb(ctx, &selectAlpn, nullptr);
  // Idle connections give their 2 x ~17 KiB record buffers back instead of keeping them.
  SSL_CTX_set_mode(ctx, SSL_MODE_RELEASE_BUFFERS);
  // Resumption: a server-side cache (TLS 1.2 session ids) plus tickets (on by default).
  SSL_CTX_set_session_cache_mode(ctx, SSL_SESS_CACHE_SERVER);
  SSL_CTX_set_session_id_context(ctx, kSessionIdContext, sizeof kSessionIdContext - 1);
}

int64_t unixTime(const ASN1_TIME* t) {
  struct tm tm {};
  return ASN1_TIME_to_tm(t, &tm) == 1 ? static_cast<int64_t>(timegm(&tm)) : 0;
}

std::vector<std::string> dnsNamesOf(X509* leaf) {
  std::vector<std::string> out;
  auto* names =
      static_cast<GENERAL_NAMES*>(X509_get_ext_d2i(leaf, NID_subject_alt_name, nullptr, nullptr));
  if (!names) return out;
  for (int i = 0; i < sk_GENERAL_NAME_num(names); ++i) {
    const GENERAL_NAME* n = sk_GENERAL_NAME_value(names, i);
    if (n->type != GEN_DNS) continue;
    const auto* s = n->d.dNSName;
    out.emplace_back(reinterpret_cast<const char*>(ASN1_STRING_get0_data(s)),
                     static_cast<std::size_t>(ASN1_STRING_length(s)));
  }
  GENERAL_NAMES_free(names);
  return out;
}

std::string utc(int64_t unixSeconds) {
  const std::time_t t = static_cast<std::time_t>(unixSeconds);
  struct tm tm {};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

// The leaf certificate's validity, serial and DNS names.
void describeLeaf(SSL_CTX* ctx, TlsLoadResult& result) {
  X509* leaf = SSL_CTX_get0_certificate(ctx);
  if (!leaf) return;
  result.notBeforeUnix = unixTime(X509_get0_notBefore(leaf));
  result.notAfterUnix = unixTime(X509_get0_notAfter(leaf));
  result.dnsNames = dnsNamesOf(leaf);
  if (BIGNUM* bn = ASN1_INTEGER_to_BN(X509_get0_serialNumber(leaf), nullptr)) {
    if (char* hex = BN_bn2hex(bn)) {
      result.serialHex = hex;
      OPENSSL_free(hex);
    }
    BN_free(bn);
  }
}

bool loadIdentity(ssl::context& ctx, const TlsFiles& files, std::string& error) {
  std::string cert, key;
  if (!readFile(files.cert, cert, error) || !readFile(files.key, key, error)) return false;
  boost::system::error_code ec;
  ctx.use_certificate_chain(boost::asio::buffer(cert), ec);
  if (ec) {
    error = files.cert + ": not a PEM certificate chain (" + ec.message() + ")";
    return false;
  }
  // Parse the key ourselves first, so "not a key" and "the wrong key" are different errors.
  BIO* bio = BIO_new_mem_buf(key.data(), static_cast<int>(key.size()));
  EVP_PKEY* pkey = bio ? PEM_read_bio_PrivateKey(bio, nullptr, nullptr, nullptr) : nullptr;
  BIO_free(bio);
  if (!pkey) {
    ERR_clear_error();
    error = files.key + ": not a PEM private key";
    return false;
  }
  const bool matches = SSL_CTX_use_PrivateKey(ctx.native_handle(), pkey) == 1 &&
                       SSL_CTX_check_private_key(ctx.native_handle()) == 1;
  EVP_PKEY_free(pkey);
  if (!matches) {
    ERR_clear_error();
    error = files.key + " does not match the certificate in " + files.cert;
    return false;
  }
  return true;
}

bool loadClientCa(ssl::context& ctx, const std::string& caFile, std::string& error) {
  std::string ca;
  if (!readFile(caFile, ca, error)) return false;
  boost::system::error_code ec;
  ctx.add_certificate_authority(boost::asio::buffer(ca), ec);
  if (ec) {
    error = caFile + ": not a PEM CA bundle (" + ec.message() + ")";
    return false;
  }
  // Verify a certificate when one is presented, but do not require one: kubelet probes and
  // Prometheus have none. The server requires it per path (HttpServerOptions).
  ctx.set_verify_mode(ssl::verify_peer);
  return true;
}

}  // namespace

std::string refuseReplacement(const CertificateValidity& served, const TlsLoadResult& candidate,
                              int64_t now, const std::string& serviceDnsName) {
  if (!served.validAt(now)) return {};  // anything that loads beats an expired certificate
  if (candidate.notAfterUnix <= now)
    return "the new certificate expired at " + utc(candidate.notAfterUnix);
  if (candidate.notBeforeUnix > now)
    return "the new certificate is not valid before " + utc(candidate.notBeforeUnix);
  if (!serviceDnsName.empty() && sansCover(served.dnsNames, serviceDnsName) &&
      !sansCover(candidate.dnsNames, serviceDnsName)) {
    std::string names;
    for (const auto& n : candidate.dnsNames) names += (names.empty() ? "" : ", ") + n;
    return "the new certificate's DNS names (" + (names.empty() ? "none" : names) +
           ") do not include the service name " + serviceDnsName + ", which the apiserver verifies";
  }
  return {};
}

bool sansCover(const std::vector<std::string>& dnsNames, const std::string& name) {
  for (const auto& san : dnsNames) {
    if (san == name) return true;
    const auto dot = name.find('.');
    if (san.rfind("*.", 0) == 0 && dot != std::string::npos && san.substr(1) == name.substr(dot))
      return true;
  }
  return false;
}

const char* tls12CipherList() {
  return "ECDHE-ECDSA-AES128-GCM-SHA256:ECDHE-RSA-AES128-GCM-SHA256:"
         "ECDHE-ECDSA-AES256-GCM-SHA384:ECDHE-RSA-AES256-GCM-SHA384:"
         "ECDHE-ECDSA-CHACHA20-POLY1305:ECDHE-RSA-CHACHA20-POLY1305";
}

const char* tls13CipherSuites() {
  return "TLS_AES_128_GCM_SHA256:TLS_AES_256_GCM_SHA384:TLS_CHACHA20_POLY1305_SHA256";
}

TlsLoadResult loadTlsContext(const TlsFiles& files) {
  TlsLoadResult result;
  auto ctx = std::make_shared<ssl::context>(ssl::context::tls_server);
  applyProtocolPolicy(ctx->native_handle());
  if (!loadIdentity(*ctx, files, result.error)) return result;
  if (!files.clientCa.empty() && !loadClientCa(*ctx, files.clientCa, result.error)) return result;
  describeLeaf(ctx->native_handle(), result);
  ERR_clear_error();
  result.context = std::move(ctx);
  return result;
}

}  // namespace gpua::server
