#include "cli/tls_terminator_maker.h"

#include "net/egress/tls/openssl_terminator.h"

namespace paddock::cli {

core::Result<std::shared_ptr<net::egress::TlsTerminator>> make_openssl_terminator(
    const std::vector<std::string>& hosts, const std::optional<std::string>& ca_file,
    std::string* authority_pem) {
  auto terminator = net::egress::tls::OpensslTerminator::create(hosts, ca_file);
  if (!terminator) return terminator.error();
  *authority_pem = (*terminator)->authority_pem();
  return std::shared_ptr<net::egress::TlsTerminator>(std::move(*terminator));
}

}  // namespace paddock::cli
