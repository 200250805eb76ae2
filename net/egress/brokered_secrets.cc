#include "net/egress/brokered_secrets.h"

#include <algorithm>

#include "core/random_hex.h"
#include "net/egress/host_pattern.h"

namespace paddock::net::egress {
namespace {

bool is_variable_name(std::string_view name) {
  return !name.empty() && !(name[0] >= '0' && name[0] <= '9') &&
         name.find_first_not_of(
             "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_") ==
             std::string_view::npos;
}

}  // namespace

core::Result<SecretSpec> parse_secret_spec(std::string_view text) {
  const std::string form =
      " (use NAME=ENVVAR@host1,host2, e.g. GITHUB_TOKEN=GH_TOKEN@api.github.com)";
  auto equals = text.find('=');
  auto at = text.find('@');
  if (equals == std::string_view::npos || at == std::string_view::npos || at < equals) {
    return core::invalid_input("'" + std::string(text) + "' is not a secret" + form);
  }
  SecretSpec spec;
  spec.name = std::string(text.substr(0, equals));
  spec.variable = std::string(text.substr(equals + 1, at - equals - 1));
  if (!is_variable_name(spec.name) || !is_variable_name(spec.variable)) {
    return core::invalid_input("'" + std::string(text) +
                               "': NAME and ENVVAR must be variable names" + form);
  }
  if (spec.name.starts_with("PADDOCK_")) {
    return core::invalid_input("'" + std::string(text) + "': " + spec.name +
                               " is paddock's own; name the sandbox's variable otherwise");
  }
  std::string_view hosts = text.substr(at + 1);
  while (!hosts.empty()) {
    std::string_view item = hosts.substr(0, hosts.find(','));
    hosts.remove_prefix(std::min(hosts.size(), item.size() + 1));
    if (item.empty()) continue;
    auto pattern = parse_host_pattern(item);
    if (!pattern || pattern->wildcard || pattern->range) {
      return core::invalid_input(
          "'" + std::string(text) + "': '" + std::string(item) +
          "' is not a host name (a secret's hosts are exact names, with a port "
          "when not 443: api.example.com or api.example.com:8443)");
    }
    SecretHost host{pattern->name, pattern->port.value_or(443)};
    if (std::find(spec.parsed_hosts.begin(), spec.parsed_hosts.end(), host) ==
        spec.parsed_hosts.end()) {
      spec.parsed_hosts.push_back(host);
      spec.hosts.emplace_back(item);
    }
  }
  if (spec.parsed_hosts.empty()) {
    return core::invalid_input("'" + std::string(text) + "' names no host" + form);
  }
  return spec;
}

core::Result<SandboxSecrets> SandboxSecrets::draw(BrokeredSecretList secrets) {
  std::vector<std::string> placeholders;
  for (const auto& secret : *secrets) {
    auto hex = core::random_hex(16, "drawing a secret's placeholder");
    if (!hex) return hex.error();
    placeholders.push_back("paddock-secret-" + secret.spec.name + "-" + *hex);
  }
  return SandboxSecrets(std::move(secrets), std::move(placeholders));
}

SandboxSecrets::SandboxSecrets(BrokeredSecretList secrets, std::vector<std::string> placeholders)
    : secrets_(std::move(secrets)), placeholders_(std::move(placeholders)) {}

std::vector<std::string> SandboxSecrets::env() const {
  std::vector<std::string> env;
  for (std::size_t i = 0; i < placeholders_.size(); ++i) {
    env.push_back((*secrets_)[i].spec.name + "=" + placeholders_[i]);
  }
  return env;
}

bool SandboxSecrets::brokers(std::string_view host, std::uint16_t port) const {
  if (!secrets_) return false;
  for (const auto& secret : *secrets_) {
    for (const auto& named : secret.spec.parsed_hosts) {
      if (named.name == host && named.port == port) return true;
    }
  }
  return false;
}

bool names_localhost(const std::vector<BrokeredSecret>& secrets) {
  for (const auto& secret : secrets) {
    for (const auto& named : secret.spec.parsed_hosts) {
      if (named.name == "localhost") return true;
    }
  }
  return false;
}

bool SandboxSecrets::for_localhost() const {
  return secrets_ && names_localhost(*secrets_);
}

void SandboxSecrets::substitute(std::string& text, std::string_view host, std::uint16_t port,
                                std::vector<SecretUse>& uses) const {
  for (std::size_t i = 0; i < placeholders_.size(); ++i) {
    const BrokeredSecret& secret = (*secrets_)[i];
    const std::string& placeholder = placeholders_[i];
    if (text.find(placeholder) == std::string::npos) continue;
    bool for_host = std::any_of(
        secret.spec.parsed_hosts.begin(), secret.spec.parsed_hosts.end(),
        [&](const SecretHost& named) { return named.name == host && named.port == port; });
    if (!for_host) {
      note_use(uses, {secret.spec.name, std::string(host), port, false,
                      "sent as it is: the secret is not for this host"});
      continue;
    }
    for (std::size_t at = text.find(placeholder); at != std::string::npos;
         at = text.find(placeholder, at + secret.value.size())) {
      text.replace(at, placeholder.size(), secret.value);
    }
    note_use(uses, {secret.spec.name, std::string(host), port, true, ""});
  }
}

void SandboxSecrets::note_found(std::string_view text, std::string_view host, std::uint16_t port,
                                const std::string& reason, std::vector<SecretUse>& uses) const {
  for (std::size_t i = 0; i < placeholders_.size(); ++i) {
    if (text.find(placeholders_[i]) == std::string_view::npos) continue;
    note_use(uses, {(*secrets_)[i].spec.name, std::string(host), port, false, reason});
  }
}

std::size_t SandboxSecrets::longest_placeholder() const {
  std::size_t longest = 0;
  for (const auto& placeholder : placeholders_) longest = std::max(longest, placeholder.size());
  return longest;
}

std::vector<std::string> trust_env(const std::string& bundle) {
  return {"SSL_CERT_FILE=" + bundle, "REQUESTS_CA_BUNDLE=" + bundle, "CURL_CA_BUNDLE=" + bundle,
          "NODE_EXTRA_CA_CERTS=" + bundle};
}

void note_use(std::vector<SecretUse>& uses, SecretUse use) {
  if (std::find(uses.begin(), uses.end(), use) != uses.end()) return;
  // A proxy's notes between two takes: bounded like its other lists.
  if (uses.size() >= 32) return;
  uses.push_back(std::move(use));
}

}  // namespace paddock::net::egress
