// Certificates for fault tests, made with the OpenSSL API: a leaf signed by an existing CA with
// any validity window (already expired, not yet valid) and any DNS names, which the openssl
// 3.0 command line cannot do without a CA database.
#pragma once

#include <openssl/ec.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include <cstdio>
#include <stdexcept>
#include <string>
#include <vector>

namespace gpua::testing {

struct LeafSpec {
  long notBeforeOffset = -60;  // seconds from now
  long notAfterOffset = 86400;
  std::vector<std::string> dnsNames{"gpu-admission.gpu-admission.svc", "localhost"};
  long serial = 1;
};

namespace detail {
template <class T, void (*Free)(T*)>
struct Owned {
  T* p = nullptr;
  ~Owned() {
    if (p) Free(p);
  }
};
inline void freeFile(FILE* f) {
  std::fclose(f);
}
}  // namespace detail

// Writes `dir/server.crt` and `dir/server.key` for `spec`, signed by caCrt/caKey.
inline void makeLeaf(const std::string& caCrt, const std::string& caKey, const std::string& dir,
                     const LeafSpec& spec) {
  using namespace detail;
  Owned<FILE, freeFile> cf{std::fopen(caCrt.c_str(), "r")}, kf{std::fopen(caKey.c_str(), "r")};
  if (!cf.p || !kf.p) throw std::runtime_error("cannot read the CA files");
  Owned<X509, X509_free> ca{PEM_read_X509(cf.p, nullptr, nullptr, nullptr)};
  Owned<EVP_PKEY, EVP_PKEY_free> caPkey{PEM_read_PrivateKey(kf.p, nullptr, nullptr, nullptr)};
  Owned<EVP_PKEY, EVP_PKEY_free> key{EVP_EC_gen("P-256")};
  Owned<X509, X509_free> x{X509_new()};
  if (!ca.p || !caPkey.p || !key.p || !x.p) throw std::runtime_error("cannot make a certificate");
  X509_set_version(x.p, 2);
  ASN1_INTEGER_set(X509_get_serialNumber(x.p), spec.serial);
  X509_gmtime_adj(X509_getm_notBefore(x.p), spec.notBeforeOffset);
  X509_gmtime_adj(X509_getm_notAfter(x.p), spec.notAfterOffset);
  X509_set_pubkey(x.p, key.p);
  X509_NAME* name = X509_get_subject_name(x.p);
  X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC,
                             reinterpret_cast<const unsigned char*>("gpu-admission test"), -1, -1,
                             0);
  X509_set_issuer_name(x.p, X509_get_subject_name(ca.p));
  std::string sans;
  for (const auto& n : spec.dnsNames) sans += (sans.empty() ? "DNS:" : ",DNS:") + n;
  sans += ",IP:127.0.0.1";
  X509V3_CTX v3;
  X509V3_set_ctx(&v3, ca.p, x.p, nullptr, nullptr, 0);
  for (const auto& [nid, value] :
       std::vector<std::pair<int, std::string>>{{NID_subject_alt_name, sans},
                                                {NID_basic_constraints, "critical,CA:FALSE"},
                                                {NID_ext_key_usage, "serverAuth"}}) {
    X509_EXTENSION* ext = X509V3_EXT_conf_nid(nullptr, &v3, nid, value.c_str());
    if (!ext) throw std::runtime_error("bad extension " + value);
    X509_add_ext(x.p, ext, -1);
    X509_EXTENSION_free(ext);
  }
  if (X509_sign(x.p, caPkey.p, EVP_sha256()) == 0) throw std::runtime_error("cannot sign");
  Owned<FILE, freeFile> out{std::fopen((dir + "/server.crt").c_str(), "w")};
  Owned<FILE, freeFile> outKey{std::fopen((dir + "/server.key").c_str(), "w")};
  if (!out.p || !outKey.p) throw std::runtime_error("cannot write to " + dir);
  PEM_write_X509(out.p, x.p);
  PEM_write_PrivateKey(outKey.p, key.p, nullptr, nullptr, 0, nullptr, nullptr);
}

}  // namespace gpua::testing
