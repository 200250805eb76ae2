#include "net/egress/tls/certificate_authority.h"

#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/x509v3.h>

namespace paddock::net::egress::tls {
namespace {

constexpr long kHour = 3600;
// The authority outlives any server; a leaf lasts under the 398 days browsers accept.
constexpr long kAuthorityLife = 5 * 365 * 24 * kHour;
constexpr long kLeafLife = 365 * 24 * kHour;

core::Error openssl_error(const std::string& what) {
  unsigned long code = ERR_get_error();
  char text[256] = "unknown error";
  if (code != 0) ERR_error_string_n(code, text, sizeof text);
  ERR_clear_error();
  return core::Error{EIO, what + ": " + text};
}

Key new_key() {
  return Key(EVP_EC_gen("P-256"));
}

bool add_extension(X509* certificate, X509* issuer, int nid, const std::string& value) {
  X509V3_CTX context;
  X509V3_set_ctx_nodb(&context);
  X509V3_set_ctx(&context, issuer, certificate, nullptr, nullptr, 0);
  X509_EXTENSION* extension = X509V3_EXT_conf_nid(nullptr, &context, nid, value.c_str());
  if (extension == nullptr) return false;
  bool added = X509_add_ext(certificate, extension, -1) == 1;
  X509_EXTENSION_free(extension);
  return added;
}

// A certificate's fields but its extensions and signature: a random serial, its validity from
// an hour ago (clocks differ), its subject and key.
Certificate new_certificate(const std::string& common_name, EVP_PKEY* key, long life) {
  Certificate certificate(X509_new());
  if (!certificate) return nullptr;
  BIGNUM* serial = BN_new();
  bool ok = serial != nullptr && BN_rand(serial, 127, BN_RAND_TOP_ANY, BN_RAND_BOTTOM_ANY) == 1 &&
            BN_to_ASN1_INTEGER(serial, X509_get_serialNumber(certificate.get())) != nullptr;
  BN_free(serial);
  X509_NAME* name = X509_get_subject_name(certificate.get());
  ok = ok && X509_set_version(certificate.get(), 2) == 1 &&
       X509_gmtime_adj(X509_getm_notBefore(certificate.get()), -kHour) != nullptr &&
       X509_gmtime_adj(X509_getm_notAfter(certificate.get()), life) != nullptr &&
       X509_set_pubkey(certificate.get(), key) == 1 &&
       X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_UTF8,
                                  reinterpret_cast<const unsigned char*>(common_name.c_str()), -1,
                                  -1, 0) == 1;
  return ok ? std::move(certificate) : nullptr;
}

}  // namespace

core::Result<CertificateAuthority> CertificateAuthority::create(
    const std::vector<std::string>& hosts) {
  CertificateAuthority authority;
  authority.key_ = new_key();
  authority.leaf_key_ = new_key();
  if (!authority.key_ || !authority.leaf_key_) {
    return openssl_error("making the brokered secrets' certificate authority's key");
  }
  authority.certificate_ = new_certificate("paddock brokered secrets (one server's, in memory)",
                                           authority.key_.get(), kAuthorityLife);
  X509* certificate = authority.certificate_.get();
  if (certificate == nullptr) return openssl_error("making the certificate authority");
  // Permitted: the secrets' hosts alone. Excluded: every IP address, which no secret names.
  std::string constraints = "critical";
  for (const auto& host : hosts) constraints += ",permitted;DNS:" + host;
  constraints += ",excluded;IP:0.0.0.0/0.0.0.0,excluded;IP:::/::";
  bool ok = X509_set_issuer_name(certificate, X509_get_subject_name(certificate)) == 1 &&
            add_extension(certificate, certificate, NID_basic_constraints,
                          "critical,CA:TRUE,pathlen:0") &&
            add_extension(certificate, certificate, NID_key_usage, "critical,keyCertSign") &&
            add_extension(certificate, certificate, NID_subject_key_identifier, "hash") &&
            add_extension(certificate, certificate, NID_name_constraints, constraints) &&
            X509_sign(certificate, authority.key_.get(), EVP_sha256()) > 0;
  if (!ok) return openssl_error("making the certificate authority");
  return authority;
}

std::string CertificateAuthority::certificate_pem() const {
  BIO* memory = BIO_new(BIO_s_mem());
  if (memory == nullptr) return "";
  std::string pem;
  if (PEM_write_bio_X509(memory, certificate_.get()) == 1) {
    char* data = nullptr;
    long size = BIO_get_mem_data(memory, &data);
    if (size > 0) pem.assign(data, static_cast<std::size_t>(size));
  }
  BIO_free(memory);
  return pem;
}

core::Result<Certificate> CertificateAuthority::issue(const std::string& host) const {
  Certificate leaf = new_certificate(host, leaf_key_.get(), kLeafLife);
  X509* certificate = leaf.get();
  if (certificate == nullptr) return openssl_error("issuing a certificate for " + host);
  bool ok =
      X509_set_issuer_name(certificate, X509_get_subject_name(certificate_.get())) == 1 &&
      add_extension(certificate, certificate_.get(), NID_basic_constraints, "critical,CA:FALSE") &&
      add_extension(certificate, certificate_.get(), NID_key_usage, "critical,digitalSignature") &&
      add_extension(certificate, certificate_.get(), NID_ext_key_usage, "serverAuth") &&
      add_extension(certificate, certificate_.get(), NID_subject_alt_name, "DNS:" + host) &&
      add_extension(certificate, certificate_.get(), NID_authority_key_identifier,
                    "keyid:always") &&
      X509_sign(certificate, key_.get(), EVP_sha256()) > 0;
  if (!ok) return openssl_error("issuing a certificate for " + host);
  return leaf;
}

}  // namespace paddock::net::egress::tls
