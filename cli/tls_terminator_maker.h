#pragma once

// paddock-full's TerminatorMaker (cli/secret_broker_setup.h): OpenSSL's, which only the
// executables that link paddock::net_egress_tls have.

#include "cli/secret_broker_setup.h"

namespace paddock::cli {

core::Result<std::shared_ptr<net::egress::TlsTerminator>> make_openssl_terminator(
    const std::vector<std::string>& hosts, const std::optional<std::string>& ca_file,
    std::string* authority_pem);

}  // namespace paddock::cli
