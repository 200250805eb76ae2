#pragma once

// The `paddock` command line, parsed into plain requests (so tests can check parsing without
// running anything). Usage errors become one line that names the problem and where to look.

#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "config/settings.h"
#include "core/result.h"
#include "net/egress/brokered_secrets.h"
#include "net/preview/forwarder.h"
#include "runtime/kube/kube_settings.h"
#include "runtime/limit_overrides.h"
#include "runtime/run_plan.h"
#include "runtime/sandbox_shape.h"

namespace paddock::cli {

// `paddock run --lang LANG (--code CODE | FILE | -) [-- ARGS...]`.
struct LanguageRequest {
  std::string language;
  std::optional<std::string> code;       // --code
  std::optional<std::string> code_file;  // FILE, or "-" for paddock's stdin
  std::vector<std::string> program_args;
  std::vector<std::string> libraries;  // --lib, installed before the run
  std::optional<std::string> policy_dir;
  std::optional<std::string> install_network;  // --install-network, over the policy's
};

struct RunRequest {
  // For a language run: the flags' part, merged over the policy's by the spec builder.
  runtime::SandboxShape shape;
  runtime::RunPlan plan;
  runtime::LimitOverrides
      limit_flags;             // the limits the flags set (already applied to shape and plan)
  bool network_given = false;  // --network was given (else a policy may decide)
  std::optional<LanguageRequest> language;
  std::optional<std::string> screening_mode;  // --screening: enforce, warn or off over the policy
  std::string backend = "native";
  kube::KubeSettings kube;  // the kubernetes backend's choices (--namespace...)
  bool json = false;
  bool stdin_from_terminal = false;       // --stdin -: paddock's own stdin becomes the program's
  std::optional<std::string> image;       // --image: the root file system from an image
  std::optional<std::string> image_root;  // --root: the image store
  // --publish: ports of the sandbox opened on the host's loopback while the program runs.
  std::vector<net::preview::PreviewPublish> publish;
  // --secret: brokered secrets (docs/secrets.md), their values read when the run starts.
  std::vector<net::egress::SecretSpec> secrets;
  bool secret_in_body = false;                // --secret-in-body
  std::optional<std::string> egress_ca_file;  // --egress-ca-file
  std::optional<std::string> audit_log;       // --audit-log: one JSON line for the run
};

// `paddock images|import|pull|rmi|gc`: the image store.
struct ImageRequest {
  std::string action;                  // images, import, pull, rmi or gc
  std::vector<std::string> arguments;  // import: the path; pull: the reference; rmi: the images
  std::optional<std::string> tag;      // import --tag
  std::string platform = "linux/amd64";
  bool json = false;
  std::optional<std::string> root;
  bool insecure = false;                  // pull --insecure: plain HTTP for any registry
  std::optional<std::string> creds;       // pull --creds USER:PASS
  std::optional<std::string> creds_file;  // pull --creds-file FILE, holding USER:PASS
};

// `paddock policy list|show LANG|check FILE|screen LANG`.
struct PolicyRequest {
  std::string action;
  std::string argument;
  bool json = false;
  std::optional<std::string> policy_dir;
};

struct DoctorRequest {
  bool json = false;
};

// --help or --version: print `text` to stdout and exit 0.
struct InfoRequest {
  std::string text;
};

// `paddock mcp`: the MCP stdio server; its flags are resolved with the environment at start.
struct McpRequest {
  config::FlagValues flags;  // the flags given, as typed (config/table.h's rows)
};

// `paddock wrap`: another MCP server, sandboxed; its flags are resolved over its profile at start.
struct WrapRequest {
  config::FlagValues flags;
  std::vector<std::string> command;  // the server's, as given after --
};

using Request = std::variant<RunRequest, DoctorRequest, PolicyRequest, McpRequest, WrapRequest,
                             ImageRequest, InfoRequest>;

core::Result<Request> parse_command_line(int argc, const char* const* argv);

}  // namespace paddock::cli
