#pragma once

// What the composition root makes for brokered secrets (docs/secrets.md), for `paddock mcp` and
// `paddock run` alike: the TLS terminator (made by paddock-full, which links a TLS library: see
// TerminatorMaker), and the trust bundle the sandboxes see at the system bundle's path, which
// holds the host's authorities and the server's own one. The bundle holds certificates only: the
// authority's key stays in the terminator, in this process's memory.

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/result.h"
#include "net/egress/brokered_secrets.h"
#include "net/egress/proxy.h"
#include "net/egress/tls_terminator.h"

namespace paddock::cli {

// Makes a terminator for the secrets' host names, and gives its authority's certificate (PEM).
// Only paddock-full has one (cli/tls_terminator_maker.h); the lean paddock hands over instead.
using TerminatorMaker = std::function<core::Result<std::shared_ptr<net::egress::TlsTerminator>>(
    const std::vector<std::string>& hosts, const std::optional<std::string>& ca_file,
    std::string* authority_pem)>;

// A private directory holding the trust bundle, removed when this is destroyed.
class TrustBundle {
 public:
  TrustBundle() = default;
  // The host's bundle (kHostTrustBundle, when it exists) and `authority_pem` after it.
  static core::Result<TrustBundle> write(const std::string& authority_pem);
  TrustBundle(TrustBundle&& other) noexcept : directory_(std::exchange(other.directory_, {})) {}
  TrustBundle& operator=(TrustBundle&& other) noexcept;
  TrustBundle(const TrustBundle&) = delete;
  TrustBundle& operator=(const TrustBundle&) = delete;
  ~TrustBundle();
  [[nodiscard]] std::string path() const { return directory_ + "/ca-certificates.crt"; }

 private:
  std::string directory_;
};

struct BrokerSetup {
  net::egress::SecretBroker broker;
  TrustBundle bundle;
};

// The broker of `secrets` (values read already); an error names what failed.
core::Result<BrokerSetup> set_up_broker(std::vector<net::egress::BrokeredSecret> secrets,
                                        bool in_body, const std::optional<std::string>& ca_file,
                                        const TerminatorMaker& make_terminator);

// The brokered secrets of one command's sandboxes (`run --secret`, `wrap --secret`).
struct CommandSecrets {
  BrokerSetup broker;
  std::string trust_bundle;      // the bundle's host path (SandboxShape::trust_bundle)
  std::vector<std::string> env;  // what makes the sandbox's TLS clients read that bundle
};

// Each spec's value read with `value_of`, then the broker set up; an error names what failed.
core::Result<CommandSecrets> command_secrets(
    const std::string& source, const std::vector<net::egress::SecretSpec>& specs, bool in_body,
    const std::optional<std::string>& ca_file,
    const std::function<std::optional<std::string>(const std::string&)>& value_of,
    const TerminatorMaker& make_terminator);

// NAME=ENVVAR@HOSTS -> its secret, with its value from `value_of(ENVVAR)`; unset or empty is an
// error that names the variable and how to set it, and so is a value too short to be masked
// (under SecretMask::kShortest characters).
core::Result<net::egress::BrokeredSecret> brokered_secret(
    const std::string& source, const net::egress::SecretSpec& spec,
    const std::function<std::optional<std::string>(const std::string&)>& value_of);

}  // namespace paddock::cli
