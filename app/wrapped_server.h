#pragma once

// `paddock wrap`: another MCP server, over stdio, in a sandbox of its own. The server gets the
// shares it was given at /work/NAME, a home that persists under the state directory, the hosts
// its profile or flags allow (through the egress proxy), and an environment of only what was
// named. Its package, when its launcher downloads one (`npx -y PKG`), is fetched by an installer
// step that alone reaches the registry, in the same sandbox, before the server starts; later
// starts find it in the home and run with the server's own network only.
//
// Between the client and the server, the wrapper reads the JSON-RPC stream (app/wrapped_stream.h)
// to audit every tools/call and refuse denied tools, and passes everything else byte for byte.

#include <optional>
#include <string>
#include <vector>

#include "app/code_gate.h"
#include "app/package_launch.h"
#include "app/server_config.h"
#include "app/wrapped_stream.h"
#include "core/result.h"
#include "runtime/backend.h"

namespace paddock::app {

// Where a wrapped server's home is in its sandbox (HOME).
inline constexpr const char* kWrappedHome = "/home/server";

struct WrappedServerOptions {
  std::string name;
  std::vector<std::string> command;  // as the user gave it
  std::optional<PackageLaunch> launch;
  bool package_installed = false;  // the home holds the launcher's package already
  // The settings the server shares with `paddock mcp`: limits, network, allowlist, private
  // ranges, seccomp, cgroups, shares (opened: their real folders), passed-through variables.
  const ServerOptions* server = nullptr;
  std::vector<std::string> env;  // NAME=VALUE: the profile's and --env's
  std::string home;              // the host folder bound at kWrappedHome
  std::string trust_bundle;      // brokered secrets' (empty: none)
  std::vector<std::string> trust_env;
};

// The sandbox and plan of the server: its command last, after the installer step when its
// package is not in its home yet.
core::Result<std::pair<runtime::SandboxShape, runtime::RunPlan>> wrapped_server_spec(
    const WrappedServerOptions& options, const Shares& shares);

// Runs the server until it exits: `client_in` is read for the client's messages, `client_out`
// gets the server's, and the server's stderr goes to `log_fd`. SIGINT, SIGTERM and SIGHUP are
// passed to the server; when the client closes `client_in`, the server's stdin closes too, and
// a server still running 5 s later is ended. The result is the sandbox's (which step ended it,
// how, and where its network went).
core::Result<runtime::RunResult> serve_wrapped(runtime::Backend& backend,
                                               const runtime::SandboxShape& shape,
                                               runtime::RunPlan plan,
                                               WrappedStream::Options stream_options,
                                               const AuditRecorder& record, int client_in,
                                               int client_out, int log_fd);

}  // namespace paddock::app
