#pragma once

// The one way from a request to a SandboxShape and a RunPlan, for `paddock run`, the MCP
// server's fresh calls and its session calls alike. Layers, each over the one before: paddock's
// defaults, the language policy, the operator's settings (flags of `paddock run`, options of
// `paddock mcp`), the call's own parts (code, files, stdin, timeout), and last the image,
// resolved once by the backend that will run it. What comes out is complete: nobody patches it
// afterwards, and backends take it as it is (const).

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/result.h"
#include "language/policy.h"
#include "runtime/backend.h"
#include "runtime/limit_overrides.h"
#include "runtime/run_plan.h"
#include "runtime/sandbox_shape.h"

namespace paddock::language {

// The operator's settings, laid over the policy. Set for the life of a server or one command.
struct SpecOverrides {
  runtime::LimitOverrides limits;
  std::optional<double> max_wall_seconds;       // a cap on any timeout (the server's)
  std::optional<runtime::NetworkMode> network;  // over the policy's run network
  std::vector<std::string> env;                 // the program's "K=V", over the policy's
  std::vector<std::string> installer_env;       // the installer's own "K=V" (a private index)
  std::vector<std::string> allowed_private_ranges;
  std::vector<std::uint16_t> host_loopback_ports;
  bool previews = false;  // SandboxShape::previews
  // Egress allowlist patterns the operator adds (--allow-host): the program's list, and the
  // installer's where the policy gives its installer one.
  std::vector<std::string> allowed_hosts;
  // paddock mcp --ask network: a sandbox without a network of its own gets the egress proxy,
  // through which the user is asked about what the allowlist does not cover.
  bool ask_network = false;
  std::string cwd;
  std::optional<std::string> stdin_path;
  std::vector<runtime::BindMount> binds;
  std::string trust_bundle;  // SandboxShape::trust_bundle
  std::optional<std::string> seccomp_profile_path;
  bool require_cgroups = false;
  std::vector<std::string> collect_directories;  // besides the policy's
  std::optional<std::uint32_t> max_collected_files;
  std::optional<std::uint64_t> max_collected_bytes;
};

// Where the run's image comes from, and who resolves it.
struct ImageSource {
  const runtime::Backend* backend = nullptr;
  std::optional<std::string> image;       // over the policy's rootfs; none: the policy's
  std::optional<std::string> store_root;  // paddock's image store (native backend)
  // Makes the image present first (the MCP server pulls on first use); may be empty.
  std::function<core::Status(const std::string& image)> ensure;
};

// One call: what a caller sends with it.
struct CodeCall {
  std::string code;
  std::vector<std::string> program_args;
  std::vector<std::string> libraries;
  std::vector<runtime::SandboxFile> files;  // written after the installer, which never sees them
  std::optional<double> timeout_seconds;    // over every other timeout, under max_wall_seconds
  int stdin_fd = -1;                        // owned by the caller
};

struct BuiltSpec {
  runtime::SandboxShape shape;
  runtime::RunPlan plan;
  bool timeout_capped = false;  // the call asked for more than max_wall_seconds
};

// A call in a session: which of the session's calls it is, and what the session keeps of it.
struct SessionCall {
  int run = 1;  // the session's n-th call: its figures go to a directory of its own
  // Captured of each stream at least (the session keeps a stream whole in a file).
  std::uint64_t min_output_bytes = 0;
};

// An allowlist installer's list (RunPlan::installer_allowed_hosts) with what the operator
// adds: the --allow-host patterns, and the host loopback ports named for a mirror. An empty list
// stays empty.
void extend_installer_list(const SpecOverrides& overrides, std::vector<std::string>& list);

// A language run of `call.code`, in a sandbox of its own (cold, or warm of the same shape).
core::Result<BuiltSpec> build_language_spec(const LanguagePolicy& policy, const CodeCall& call,
                                            const SpecOverrides& overrides,
                                            const ImageSource& image);

// A session of `policy`: the shape (support files, limits, image, a network ready for its
// installer commands) and the plan every command starts from (its environment), with no code and
// no steps: each call brings its own (build_session_call). Sessions never get the host's network.
core::Result<BuiltSpec> build_session_spec(const LanguagePolicy& policy,
                                           const SpecOverrides& overrides,
                                           const ImageSource& image);

// The plan of `call` in a session of `policy` (build_session_spec): the session's sandbox, image
// and environment exist already, so it holds the call's steps, files, timer and what it collects:
// the figures it draws, each call's in a directory of its own (session_plot_directory), and the
// files the operator allows (overrides' max_collected_*).
struct BuiltCall {
  runtime::RunPlan plan;
  runtime::Limits limits;  // every limit that applies, for the audit log
  bool timeout_capped = false;
};
core::Result<BuiltCall> build_session_call(const LanguagePolicy& policy, const CodeCall& call,
                                           const SpecOverrides& overrides,
                                           const SessionCall& session);

// A cell of a live session of `policy` (its interpreter runs it: no plan), under the session's
// `limits`: the timer is the call's `timeout`, else the policy's own, else the session's.
struct BuiltCell {
  runtime::Limits limits;  // every limit that applies, for the audit log
  bool timeout_capped = false;
};
BuiltCell build_live_cell(const LanguagePolicy& policy, const std::optional<double>& timeout,
                          const runtime::Limits& session_limits, const SpecOverrides& overrides);

// The policy's limits over paddock's defaults, as a call of the language that asks for no
// timeout gets them from the policy (the catalog shows them): its timeout under the cap.
runtime::Limits language_limits(const LanguagePolicy& policy, const SpecOverrides& overrides);

// `libraries` installed into a session of `policy` by the policy's installer: one networked
// step (with the installer's list, and what the operator adds to it), its timer four times
// the policy's timeout, never over max_wall_seconds.
core::Result<BuiltCall> build_session_install(const LanguagePolicy& policy,
                                              const std::vector<std::string>& libraries,
                                              const SpecOverrides& overrides);

// The plot directory of a session's n-th call, relative to the work directory: each call's
// figures apart from the last one's.
std::string session_plot_directory(int run);

// `argv` in the sandbox a session of `policy` gets (its environment, limits and image), for
// `wall_seconds`: the language's toolchain asked for its version.
core::Result<BuiltSpec> build_toolchain_spec(const LanguagePolicy& policy,
                                             const std::vector<std::string>& argv,
                                             double wall_seconds, const SpecOverrides& overrides,
                                             const ImageSource& image);

// A command run without a language: `shape` and `plan` are the whole run as the command line
// set it; the image (if any) supplies its root, environment and, when the plan has none, its
// command.
core::Result<BuiltSpec> build_command_spec(runtime::SandboxShape shape, runtime::RunPlan plan,
                                           const ImageSource& image);

}  // namespace paddock::language
