#pragma once

// The certificate authority a server makes for its brokered secrets (docs/secrets.md): an EC
// P-256 key made at start and held in this process's memory alone (never written to a file,
// never in a sandbox), and a certificate that name constraints limit to the secrets' hosts, so
// that even a sandbox that trusts it trusts nothing else by it. Leaf certificates for those
// hosts are issued on demand, one key for all of them.

#include <openssl/evp.h>
#include <openssl/x509.h>

#include <memory>
#include <string>
#include <vector>

#include "core/result.h"

namespace paddock::net::egress::tls {

struct KeyFree {
  void operator()(EVP_PKEY* key) const { EVP_PKEY_free(key); }
};
struct CertificateFree {
  void operator()(X509* certificate) const { X509_free(certificate); }
};
using Key = std::unique_ptr<EVP_PKEY, KeyFree>;
using Certificate = std::unique_ptr<X509, CertificateFree>;

class CertificateAuthority {
 public:
  // An authority for `hosts` (names) and their subdomains, and nothing else.
  static core::Result<CertificateAuthority> create(const std::vector<std::string>& hosts);

  // Its certificate, PEM: what sandboxes trust.
  [[nodiscard]] std::string certificate_pem() const;
  // A certificate for `host`, signed by the authority, for leaf_key().
  [[nodiscard]] core::Result<Certificate> issue(const std::string& host) const;
  [[nodiscard]] EVP_PKEY* leaf_key() const { return leaf_key_.get(); }

 private:
  Key key_;
  Certificate certificate_;
  Key leaf_key_;
};

}  // namespace paddock::net::egress::tls
