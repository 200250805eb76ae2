#pragma once

// `paddock mcp`'s configuration as typed values: what cli/mcp_settings.h's table resolved from
// the flags and the environment, which only the top floor reads.

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "app/host_transfer.h"
#include "app/shares.h"
#include "language/spec_builder.h"
#include "net/egress/brokered_secrets.h"
#include "net/preview/forwarder.h"
#include "runtime/limit_overrides.h"
#include "runtime/sandbox_parts.h"

namespace paddock::app {

// What the table resolved (cli/mcp_settings.cc), typed.
struct ServerOptions {
  std::string backend = "native";
  // The kubernetes backend's choices; unset: the backend's own defaults, written once there
  // (runtime/kube/kube_settings.h, which app/ may not include: cli/backend_settings.h lays these
  // over them).
  std::optional<std::string> kube_namespace;
  std::optional<double> pod_start_seconds;  // how long a Kubernetes pod may take to run
  // A Localhost seccomp profile for Kubernetes pods, below the kubelet's seccomp directory.
  std::optional<std::string> kube_seccomp_profile;
  std::optional<std::string> policy_dir;
  // ~/.config/paddock/policies (XDG_CONFIG_HOME), under policy_dir; found by the command line.
  std::optional<std::string> user_policy_dir;
  // The server's environment, where the policies' install mirrors are looked up (policy.h).
  language::VariableLookup policy_variables;
  std::string default_language = "python";
  std::size_t workers = 8;       // tool calls served at once
  std::size_t max_queued = 256;  // calls waiting beyond that; more are refused
  // Bytes of request text those waiting calls may hold (each line is up to 32 MiB): more is
  // refused, so a burst of large writes cannot hold gigabytes.
  std::size_t max_queued_bytes = std::size_t{256} << 20;
  std::size_t max_sessions = 16;
  // Sandboxes set up ahead of the fresh calls that will take them, per language (warm_pool.h).
  std::size_t warm_per_language = 1;
  // Live sessions' kernels made ready soon after the server starts, by language (--ready-kernels):
  // the first create_session takes one instead of starting a kernel. A language not named gets
  // its first once its first live session opened, as every language does.
  std::map<std::string, std::size_t> ready_kernels = {{"python", 1}};
  // What the pools above may hold together, their processes' PSS (app/pool_memory.h).
  std::uint64_t pool_memory = 512ull << 20;
  // Whether a warm sandbox of a language with a warm interpreter (a policy's "warm") starts it
  // before its call; false keeps them plain (namespaces, mounts and filter only).
  bool warm_interpreters = true;
  // Modules a language's warm interpreter imports, over its policy's "preload" list.
  std::map<std::string, std::vector<std::string>> preload;
  // Where sessions are kept so that a later server reopens them (state/, docs/sessions.md):
  // --state-dir, default $XDG_STATE_HOME/paddock or ~/.local/state/paddock; empty keeps none.
  std::string state_dir;
  bool state_dir_set = false;  // given (--state-dir none leaves state_dir empty)
  // A session's work directory (its tmpfs) at most; unset: the policy's "work" limit.
  std::optional<std::uint64_t> session_disk;
  std::uint64_t session_files = 50000;           // a session's files and folders at most
  std::uint64_t state_disk = 10ull << 30;        // the state directory's whole size at most
  double session_retention_seconds = 7 * 86400;  // unused kept sessions are removed after it
  double session_idle_seconds = 1800;            // default ttl_seconds of a session
  double max_session_idle_seconds = 86400;
  // A session idle this long is frozen until its next use (Session::freeze); 0: never.
  double idle_freeze_seconds = 300;
  double max_timeout_seconds = 300;  // cap on execute_code's timeout
  runtime::LimitOverrides limits;    // over every language policy's
  bool require_cgroups = false;      // refuse sandboxes whose limits cgroup v2 cannot enforce
  // Bytes of each stream a tool result carries, its start and its end: a model's context is
  // small, and the end is where the final error is.
  std::uint64_t result_stream_bytes = 64u << 10;
  // Files (figures first) a call returns at most, and their bytes together; the rest are named.
  std::uint32_t max_artifacts = 20;
  std::uint64_t max_artifact_bytes = 4u << 20;
  std::optional<runtime::NetworkMode> network;  // for programs, over the policies'
  // A seccomp profile file (Docker's JSON format) over the policies' (--seccomp-profile).
  std::optional<std::string> seccomp_profile;
  std::optional<std::string> install_network;  // for installers: none, user or host
  // What user-mode networking may reach beyond the public network (network_fence.h).
  std::vector<std::string> allowed_private_ranges;
  std::vector<std::uint16_t> host_loopback_ports;
  // An egress allowlist for every program (PADDOCK_ALLOW_HOSTS's, then each --allow-host), which
  // installers with a package index list get too. Tool arguments never widen it.
  std::vector<std::string> allowed_hosts;
  std::string log_level = "info";
  std::optional<std::string> audit_log;  // a file: one JSON line per run
  // Variables handed from the server's environment into every sandbox: "NAME=VALUE".
  std::vector<std::string> pass_through_env;
  std::map<std::string, std::string> images;  // language name as given -> image reference
  // Host folders the tools may use (PADDOCK_SHARE's first, then each --share); opened, and
  // checked, when the server starts.
  std::vector<ShareSpec> shares;
  std::optional<std::string> home;  // HOME, for a share written as "~/..."
  // --share-roots: the folders the client lists as its roots (MCP roots/list) are shared too,
  // read-only or read-write, and follow the client's changes; none: roots are not shared.
  enum class RootSharing { kNone, kReadOnly, kReadWrite };
  RootSharing share_roots = RootSharing::kNone;
  TransferCaps transfer_caps;  // of one upload or download
  bool pull_missing_images = true;
  // expose_port may open a session's port on the host's loopback (docs/previews.md): only the
  // user allows it (--allow-preview), never a tool argument.
  bool allow_preview = false;
  // --ask: the user is asked through the client (MCP elicitation) before a sandbox reaches a
  // host the allowlist does not cover (network), or before expose_port opens a preview
  // (preview); a question nobody answers within ask_timeout_seconds is a refusal.
  bool ask_network = false;
  bool ask_preview = false;
  double ask_timeout_seconds = 60;
  // The host ports previews listen on, [first, last]; {0, 0}: any the kernel picks.
  std::pair<std::uint16_t, std::uint16_t> preview_ports{0, 0};
  // Previews open at most, all sessions together (--max-previews); a session's are capped too
  // (net::preview::PreviewLimits).
  std::size_t max_previews = net::preview::kDefaultMaxPreviews;
  // Brokered secrets (--secret, docs/secrets.md), each with its real value, read at start: the
  // sandboxes get placeholders, their proxies put the values into requests to their hosts.
  std::vector<net::egress::BrokeredSecret> secrets;
  bool secrets_in_body = false;               // --secret-in-body
  std::optional<std::string> egress_ca_file;  // the upstream trust instead of the system's
  // Once the composition root has made the secrets' authority: the bundle (host path) every
  // sandbox sees at net::egress::kSandboxTrustBundle.
  std::string trust_bundle;
};

// The options every call shares, as the spec builder's overrides of a language run.
language::SpecOverrides spec_overrides(const ServerOptions& options);

}  // namespace paddock::app
