#pragma once

// What the settings table (config/table.h) writes: one typed value for every command. A row
// both commands take writes one field here, which each command reads.

#include <optional>
#include <string>
#include <vector>

#include "app/server_config.h"
#include "net/egress/brokered_secrets.h"
#include "net/preview/forwarder.h"
#include "runtime/sandbox_parts.h"

namespace paddock::config {

// The settings only `paddock run` takes: what one run brings.
struct RunSettings {
  bool json = false;
  std::optional<std::string> image;  // --image REF: the root file system from an image
  std::optional<std::string> root;   // --root: the image store
  std::string stdin_file;            // "-": paddock's own stdin
  std::vector<std::string> env;      // NAME=VALUE
  std::string workdir;
  std::string language;  // --lang
  std::optional<std::string> code;
  std::vector<std::string> libraries;
  std::optional<std::string> screening;  // enforce, warn or off, over the policy's
  std::vector<net::preview::PreviewPublish> publish;
  std::vector<runtime::BindMount> binds;  // --ro-bind's, then --bind's
  std::vector<std::string> collect;
};

// The settings only `paddock wrap` takes.
struct WrapSettings {
  std::optional<std::string> profile;  // policies/servers/NAME.json, or the user's
  std::optional<std::string> name;     // names the kept home and audit lines
  std::vector<std::string> deny_tools;
  bool audit_values = false;  // tool arguments' values in the audit log, masked
};

struct Options {
  // The server's options. The settings both commands take (the backend, the policies, limits,
  // the network, the egress allowlist, brokered secrets, cgroups) are fields of it too, and
  // `paddock run` reads them from here.
  app::ServerOptions server;
  // --secret as parsed, with where each came from. Their values are read only when a command
  // uses them (the server at its start, a run when it runs), so parsing reads no secret.
  struct Secret {
    net::egress::SecretSpec spec;
    std::string source;  // "--secret" or "PADDOCK_SECRETS"
  };
  std::vector<Secret> secrets;
  RunSettings run;
  WrapSettings wrap;
};

}  // namespace paddock::config
