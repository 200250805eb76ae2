#pragma once

// The TlsTerminator (net/egress/tls_terminator.h) of paddock-full, with OpenSSL: the ends toward
// the sandbox present certificates of the server's own authority (certificate_authority.h), one
// context per host made on first use; the ends toward the real hosts verify them against the
// host's trust store, or against the user's CA file (--egress-ca-file) instead.

#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "net/egress/tls/certificate_authority.h"
#include "net/egress/tls_terminator.h"

typedef struct ssl_ctx_st SSL_CTX;

namespace paddock::net::egress::tls {

struct ContextFree {
  void operator()(SSL_CTX* context) const;
};
using Context = std::unique_ptr<SSL_CTX, ContextFree>;

class OpensslTerminator final : public TlsTerminator {
 public:
  // For `hosts` (the secrets' host names); `ca_file`: the upstream trust instead of the system's.
  static core::Result<std::shared_ptr<OpensslTerminator>> create(
      const std::vector<std::string>& hosts, const std::optional<std::string>& ca_file);

  core::Result<std::unique_ptr<TlsEnd>> serve(const std::string& host) override;
  core::Result<std::unique_ptr<TlsEnd>> connect(const std::string& host) override;
  // The authority's certificate, PEM: what the sandboxes' trust bundle adds.
  [[nodiscard]] std::string authority_pem() const { return authority_.certificate_pem(); }

 private:
  explicit OpensslTerminator(CertificateAuthority authority) : authority_(std::move(authority)) {}

  CertificateAuthority authority_;
  Context client_context_;
  std::mutex mutex_;
  std::map<std::string, Context> server_contexts_;  // by host, made on first use
};

}  // namespace paddock::net::egress::tls
