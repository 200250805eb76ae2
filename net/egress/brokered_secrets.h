#pragma once

// Brokered secrets (docs/secrets.md): secrets whose real values stay in the server. A sandbox
// gets a placeholder in each secret's variable, drawn for that sandbox alone; its egress proxy,
// which terminates TLS for the secrets' hosts and for nothing else, puts the real value in place
// of the placeholder in requests to those hosts. Sent anywhere else, a placeholder is useless.
//
// This file holds the pure part: what the user configured, the placeholders, and the
// replacement itself, so that each is unit-tested without sockets or TLS.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"
#include "net/egress/egress_record.h"

namespace paddock::net::egress {

// One host a secret is for: an exact name, and the port its TLS is reached on.
struct SecretHost {
  std::string name;  // lower case
  std::uint16_t port = 443;
  friend bool operator==(const SecretHost&, const SecretHost&) = default;
};

// "NAME=ENVVAR@host1,host2", as --secret takes it; the value is looked up by the caller.
struct SecretSpec {
  std::string name;                // the variable the sandbox sees
  std::string variable;            // the server's variable that holds the real value
  std::vector<std::string> hosts;  // as written ("api.example.com", "api.example.com:8443")
  std::vector<SecretHost> parsed_hosts;
};

// The error says what was wrong with `text` and shows the form.
core::Result<SecretSpec> parse_secret_spec(std::string_view text);

struct BrokeredSecret {
  SecretSpec spec;
  std::string value;  // the real value: never in a sandbox, a result, a log or a file
};

// Whether one of `secrets` is for a port of localhost: the name then means the host's loopback
// in its sandboxes, reached through the proxy (proxy_env).
bool names_localhost(const std::vector<BrokeredSecret>& secrets);

// The secrets of one server, shared by its sandboxes' proxies; never changed once made.
using BrokeredSecretList = std::shared_ptr<const std::vector<BrokeredSecret>>;

// One sandbox's placeholders for the server's secrets.
class SandboxSecrets {
 public:
  SandboxSecrets() = default;
  // A placeholder per secret: "paddock-secret-NAME-" and 128 random bits in hex.
  static core::Result<SandboxSecrets> draw(BrokeredSecretList secrets);
  // For tests and the fuzzer: placeholders given.
  SandboxSecrets(BrokeredSecretList secrets, std::vector<std::string> placeholders);

  [[nodiscard]] bool empty() const { return placeholders_.empty(); }
  // NAME=PLACEHOLDER, one per secret: what the sandbox's environment gets.
  [[nodiscard]] std::vector<std::string> env() const;
  // Whether a secret is for `host` at `port`: then its TLS is terminated, and the proxy connects
  // to it whatever it resolves to (the user named it: a local API on the host's loopback).
  [[nodiscard]] bool brokers(std::string_view host, std::uint16_t port) const;
  // Whether a secret is for a port of `localhost`: the sandbox's programs then send that name
  // through the proxy (proxy_env), which means the host's own loopback.
  [[nodiscard]] bool for_localhost() const;
  // Replaces every placeholder in `text` whose secret is for host:port with its value; each
  // placeholder found is noted in `uses` (substituted, or not for this host).
  void substitute(std::string& text, std::string_view host, std::uint16_t port,
                  std::vector<SecretUse>& uses) const;
  // Notes, with `reason`, every secret whose placeholder occurs in `text` (nothing replaced).
  void note_found(std::string_view text, std::string_view host, std::uint16_t port,
                  const std::string& reason, std::vector<SecretUse>& uses) const;
  // The longest placeholder: text scanned piece by piece keeps this much less one byte back, so
  // that a placeholder split between two pieces is still seen.
  [[nodiscard]] std::size_t longest_placeholder() const;

 private:
  BrokeredSecretList secrets_;
  std::vector<std::string> placeholders_;  // in the order of *secrets_
};

// The variables that point TLS clients at `bundle`, a sandbox's trust bundle (the host's
// authorities and the server's own): OpenSSL's (python's ssl, ruby), requests', curl's and
// node's.
std::vector<std::string> trust_env(const std::string& bundle);

// Adds `use` to `uses` unless an equal one is there (the same name, host, port and outcome).
void note_use(std::vector<SecretUse>& uses, SecretUse use);

}  // namespace paddock::net::egress
