#include "cli/secret_broker_setup.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>

#include "app/secret_mask.h"
#include "core/files.h"
#include "core/write_all.h"
#include "runtime/sandbox_parts.h"

namespace paddock::cli {
namespace {

// Debian's and Ubuntu's system bundle, which the sandbox's own path replaces.
constexpr const char* kHostTrustBundle = "/etc/ssl/certs/ca-certificates.crt";

}  // namespace

core::Result<TrustBundle> TrustBundle::write(const std::string& authority_pem) {
  std::string base = std::filesystem::temp_directory_path().string();
  std::string pattern = base + "/paddock-trust-XXXXXX";
  if (mkdtemp(pattern.data()) == nullptr)
    return core::system_error("making the sandboxes' trust bundle");
  TrustBundle bundle;
  bundle.directory_ = pattern;
  // Read by every sandbox's init, whichever user it maps: public certificates only.
  if (chmod(pattern.c_str(), 0755) != 0)
    return core::system_error("making the sandboxes' trust bundle");
  std::string contents = core::read_text_or_empty(kHostTrustBundle);
  if (!contents.empty() && contents.back() != '\n') contents += '\n';
  contents += authority_pem;
  std::string path = bundle.path();
  int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) return core::system_error("writing " + path);
  if (int error = core::write_all(fd, contents); error != 0) {
    close(fd);
    return core::system_error("writing " + path, error);
  }
  fchmod(fd, 0644);  // whatever the umask
  close(fd);
  return bundle;
}

TrustBundle& TrustBundle::operator=(TrustBundle&& other) noexcept {
  if (this != &other) {
    TrustBundle old(std::move(*this));
    directory_ = std::exchange(other.directory_, {});
  }
  return *this;
}

TrustBundle::~TrustBundle() {
  if (directory_.empty()) return;
  std::error_code ignored;
  std::filesystem::remove_all(directory_, ignored);
}

core::Result<BrokerSetup> set_up_broker(std::vector<net::egress::BrokeredSecret> secrets,
                                        bool in_body, const std::optional<std::string>& ca_file,
                                        const TerminatorMaker& make_terminator) {
  std::vector<std::string> hosts;
  for (const auto& secret : secrets) {
    for (const auto& host : secret.spec.parsed_hosts) {
      if (std::find(hosts.begin(), hosts.end(), host.name) == hosts.end()) {
        hosts.push_back(host.name);
      }
    }
  }
  std::string authority_pem;
  auto terminator = make_terminator(hosts, ca_file, &authority_pem);
  if (!terminator) return terminator.error();
  auto bundle = TrustBundle::write(authority_pem);
  if (!bundle) return bundle.error();
  BrokerSetup setup;
  setup.broker.secrets =
      std::make_shared<const std::vector<net::egress::BrokeredSecret>>(std::move(secrets));
  setup.broker.tls = std::move(*terminator);
  setup.broker.in_body = in_body;
  setup.bundle = std::move(*bundle);
  return setup;
}

core::Result<net::egress::BrokeredSecret> brokered_secret(
    const std::string& source, const net::egress::SecretSpec& spec,
    const std::function<std::optional<std::string>(const std::string&)>& value_of) {
  auto value = value_of(spec.variable);
  if (!value || value->empty()) {
    return core::invalid_input(
        source + " " + spec.name + " reads " + spec.variable +
        ", which is unset or empty in paddock's environment; set it (for an MCP "
        "server, in the client's \"env\" block) or leave the secret out");
  }
  // A value the mask cannot hide (too short: masking it would garble every output) would come
  // back whole if a host echoed it; no real credential is that short.
  if (value->size() < app::SecretMask::kShortest) {
    return core::invalid_input(source + " " + spec.name + " reads " + spec.variable +
                               ", whose value is " + std::to_string(value->size()) +
                               " characters long; a brokered secret needs " +
                               std::to_string(app::SecretMask::kShortest) +
                               " at least, or it could not be masked in results (set the real "
                               "credential there)");
  }
  return net::egress::BrokeredSecret{spec, *value};
}

}  // namespace paddock::cli

namespace paddock::cli {

core::Result<CommandSecrets> command_secrets(
    const std::string& source, const std::vector<net::egress::SecretSpec>& specs, bool in_body,
    const std::optional<std::string>& ca_file,
    const std::function<std::optional<std::string>(const std::string&)>& value_of,
    const TerminatorMaker& make_terminator) {
  CommandSecrets made;
  if (specs.empty()) return made;
  std::vector<net::egress::BrokeredSecret> secrets;
  for (const auto& spec : specs) {
    auto secret = brokered_secret(source, spec, value_of);
    if (!secret) return secret.error();
    secrets.push_back(std::move(*secret));
  }
  auto broker = set_up_broker(std::move(secrets), in_body, ca_file, make_terminator);
  if (!broker) return broker.error();
  made.broker = std::move(*broker);
  made.trust_bundle = made.broker.bundle.path();
  made.env = net::egress::trust_env(runtime::kSandboxTrustBundle);
  return made;
}

}  // namespace paddock::cli
