#include "server/tls_context.hpp"

#include <openssl/ssl.h>

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "support/temp_dir.hpp"
#include "support/tls_test_client.hpp"

namespace gpua::server {
namespace {

using gpua::testing::TempDir;

class TlsContextTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new TempDir();
    gpua::testing::generateDevCerts(GPUA_GEN_CERTS, dir_->file("a"));
    gpua::testing::generateDevCerts(GPUA_GEN_CERTS, dir_->file("b"));
  }
  static void TearDownTestSuite() { delete dir_; }
  static std::string a(const std::string& f) { return dir_->file("a/" + f); }
  static std::string b(const std::string& f) { return dir_->file("b/" + f); }
  static TempDir* dir_;
};
TempDir* TlsContextTest::dir_ = nullptr;

TEST_F(TlsContextTest, LoadsAGoodPairWithModernSettings) {
  auto r = loadTlsContext({a("server.crt"), a("server.key"), ""});
  ASSERT_TRUE(r.context) << r.error;
  SSL_CTX* ctx = r.context->native_handle();
  EXPECT_EQ(SSL_CTX_get_min_proto_version(ctx), TLS1_2_VERSION);
  EXPECT_EQ(SSL_CTX_get_max_proto_version(ctx), TLS1_3_VERSION);
  EXPECT_NE(SSL_CTX_get_session_cache_mode(ctx) & SSL_SESS_CACHE_SERVER, 0);
  EXPECT_EQ(SSL_CTX_get_options(ctx) & SSL_OP_NO_TICKET, 0u);  // tickets stay on
  EXPECT_EQ(SSL_CTX_get_verify_mode(ctx), SSL_VERIFY_NONE);
  // Every TLS 1.2 suite offered is ECDHE with an AEAD.
  STACK_OF(SSL_CIPHER)* ciphers = SSL_CTX_get_ciphers(ctx);
  int tls12 = 0;
  for (int i = 0; i < sk_SSL_CIPHER_num(ciphers); ++i) {
    const SSL_CIPHER* c = sk_SSL_CIPHER_value(ciphers, i);
    const std::string name = SSL_CIPHER_get_name(c);
    if (name.rfind("TLS_", 0) == 0) continue;  // TLS 1.3 suites
    ++tls12;
    EXPECT_EQ(name.rfind("ECDHE-", 0), 0u) << name;
    EXPECT_TRUE(name.find("GCM") != std::string::npos || name.find("CHACHA20") != std::string::npos)
        << name;
  }
  EXPECT_GT(tls12, 0);
  // The TLS 1.3 suites come first, in the server's order: AES-128-GCM before AES-256-GCM.
  std::vector<std::string> tls13;
  for (int i = 0; i < sk_SSL_CIPHER_num(ciphers); ++i) {
    const std::string name = SSL_CIPHER_get_name(sk_SSL_CIPHER_value(ciphers, i));
    if (name.rfind("TLS_", 0) == 0) tls13.push_back(name);
  }
  EXPECT_EQ(tls13, (std::vector<std::string>{"TLS_AES_128_GCM_SHA256", "TLS_AES_256_GCM_SHA384",
                                             "TLS_CHACHA20_POLY1305_SHA256"}));
  EXPECT_GT(r.notAfterUnix, std::time(nullptr));
  EXPECT_FALSE(r.serialHex.empty());
}

// The handshake verifies a client certificate when there is one but lets probes without one
// in; the server requires it per path (probes and metrics are exempt).
TEST_F(TlsContextTest, ClientCaVerifiesPresentedClientCertificates) {
  auto r = loadTlsContext({a("server.crt"), a("server.key"), a("ca.crt")});
  ASSERT_TRUE(r.context) << r.error;
  EXPECT_EQ(SSL_CTX_get_verify_mode(r.context->native_handle()), SSL_VERIFY_PEER);
}

// Idle connections hand their record buffers back, so many idle connections stay cheap.
TEST_F(TlsContextTest, ReleasesBuffersOfIdleConnections) {
  auto r = loadTlsContext({a("server.crt"), a("server.key"), ""});
  ASSERT_TRUE(r.context) << r.error;
  EXPECT_NE(SSL_CTX_get_mode(r.context->native_handle()) & SSL_MODE_RELEASE_BUFFERS, 0u);
}

TEST_F(TlsContextTest, DescribesValidityAndDnsNames) {
  auto r = loadTlsContext({a("server.crt"), a("server.key"), ""});
  ASSERT_TRUE(r.context) << r.error;
  EXPECT_LE(r.notBeforeUnix, std::time(nullptr));
  EXPECT_GT(r.notAfterUnix, r.notBeforeUnix);
  EXPECT_TRUE(sansCover(r.dnsNames, "gpu-admission.gpu-admission.svc"));
  EXPECT_FALSE(sansCover(r.dnsNames, "other.gpu-admission.svc"));
  EXPECT_TRUE(sansCover({"*.gpu-admission.svc"}, "x.gpu-admission.svc"));
  EXPECT_FALSE(sansCover({"*.gpu-admission.svc"}, "a.x.gpu-admission.svc"));
}

// While the served certificate is valid, an expired or not-yet-valid
// replacement is refused; once it has expired, anything that loads is better.
TEST(CertificateRotation, RefusesReplacementsOutsideTheirValidity) {
  const int64_t now = 1'000'000;
  const CertificateValidity served{now - 100, now + 100, {}};
  TlsLoadResult candidate;
  candidate.notBeforeUnix = now - 10;
  candidate.notAfterUnix = now + 1000;
  EXPECT_EQ(refuseReplacement(served, candidate, now), "");
  candidate.notAfterUnix = now - 1;
  EXPECT_NE(refuseReplacement(served, candidate, now).find("expired"), std::string::npos);
  candidate.notAfterUnix = now + 1000;
  candidate.notBeforeUnix = now + 60;
  EXPECT_NE(refuseReplacement(served, candidate, now).find("not valid before"), std::string::npos);
  const CertificateValidity expired{now - 100, now - 1, {}};
  EXPECT_EQ(refuseReplacement(expired, candidate, now), "");
}

TEST(CertificateRotation, RefusesAReplacementWithoutTheServiceNameTheServedOneHas) {
  const int64_t now = 1'000'000;
  const std::string name = "gpu-admission.gpu-admission.svc";
  const CertificateValidity served{now - 100, now + 100, {name}};
  TlsLoadResult candidate;
  candidate.notBeforeUnix = now - 10;
  candidate.notAfterUnix = now + 1000;
  candidate.dnsNames = {"elsewhere.example"};
  const auto why = refuseReplacement(served, candidate, now, name);
  EXPECT_NE(why.find("do not include the service name " + name), std::string::npos) << why;
  EXPECT_NE(why.find("elsewhere.example"), std::string::npos) << why;
  EXPECT_EQ(refuseReplacement(served, candidate, now), "") << "no name configured";
  candidate.dnsNames = {"*.gpu-admission.svc"};
  EXPECT_EQ(refuseReplacement(served, candidate, now, name), "") << "a wildcard covers it";
  // A served pair without the name is no better: the replacement may go in.
  candidate.dnsNames = {"elsewhere.example"};
  EXPECT_EQ(refuseReplacement({now - 100, now + 100, {"other"}}, candidate, now, name), "");
}

TEST_F(TlsContextTest, MissingFilesAreNamed) {
  auto r = loadTlsContext({dir_->file("nope.crt"), a("server.key"), ""});
  EXPECT_FALSE(r.context);
  EXPECT_NE(r.error.find("nope.crt"), std::string::npos) << r.error;
  r = loadTlsContext({a("server.crt"), a("server.key"), dir_->file("no-ca.crt")});
  EXPECT_NE(r.error.find("no-ca.crt"), std::string::npos) << r.error;
}

TEST_F(TlsContextTest, KeyThatDoesNotMatchIsRejected) {
  auto r = loadTlsContext({a("server.crt"), b("server.key"), ""});
  EXPECT_FALSE(r.context);
  EXPECT_NE(r.error.find("does not match"), std::string::npos) << r.error;
}

TEST_F(TlsContextTest, GarbageIsNotACertificate) {
  gpua::testing::writeFile(dir_->file("junk.pem"), "not a certificate\n");
  auto r = loadTlsContext({dir_->file("junk.pem"), a("server.key"), ""});
  EXPECT_FALSE(r.context);
  EXPECT_NE(r.error.find("junk.pem"), std::string::npos) << r.error;
  r = loadTlsContext({a("server.crt"), dir_->file("junk.pem"), ""});
  EXPECT_NE(r.error.find("private key"), std::string::npos) << r.error;
}

TEST_F(TlsContextTest, StoreSwapsForNewReadersOnly) {
  auto first = loadTlsContext({a("server.crt"), a("server.key"), ""}).context;
  auto second = loadTlsContext({b("server.crt"), b("server.key"), ""}).context;
  TlsContextStore store(first);
  auto held = store.current();
  store.set(second);
  EXPECT_EQ(store.current(), second);
  EXPECT_EQ(held, first);  // a connection that took the old one keeps it alive
}

}  // namespace
}  // namespace gpua::server
