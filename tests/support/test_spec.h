#pragma once

// A test's whole description of one run, set up field by field: the sandbox (SandboxShape) and
// the call run in it (RunPlan) in one struct, which shape_of and plan_of take apart for the
// backend. Tests only: paddock itself builds the two apart (language/spec_builder.h).

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "runtime/run_plan.h"
#include "runtime/sandbox_shape.h"

namespace paddock {

struct TestSpec {
  std::vector<std::string> argv;  // argv[0] is looked up in PATH inside the sandbox
  // Commands run before argv, in order, in the same sandbox (e.g. a compiler). The first that
  // does not exit 0 ends the run, and the result says which step that was.
  std::vector<std::vector<std::string>> prelude;
  std::vector<runtime::SandboxFile> files;
  // The caller's own files: written into the work directory right before the step after the
  // networked prelude (the installer), so that no installer ever sees them; with no installer,
  // before the first step, as `files` are.
  std::vector<runtime::SandboxFile> files_after_install;
  runtime::OutputCollection collect;      // nothing by default
  std::vector<std::string> env;           // "K=V"; the host environment never leaks in
  std::string workdir = "/work";          // the writable tmpfs work directory, and the cwd
  std::string cwd;                        // start directory; empty means workdir
  std::optional<std::string> stdin_path;  // host file given as stdin; none means /dev/null
  int stdin_fd = -1;                      // or an fd the caller owns (takes precedence)
  runtime::Limits limits;
  runtime::NetworkMode network = runtime::NetworkMode::kNone;  // for the program
  // The first this many prelude commands (a library installer) get user-mode networking; it is
  // taken away again before the next step unless `network` is kUser.
  std::size_t networked_prelude = 0;
  // Destinations user-mode networking refuses by default (private, link-local, loopback and the
  // host's own addresses) that this run may reach anyway: IP addresses or CIDR ranges.
  std::vector<std::string> allowed_private_ranges;
  // TCP ports of the host's loopback that user-mode networking reaches at the sandbox's own
  // 127.0.0.1 (a package mirror on the host). Loosens isolation: only when asked by name.
  std::vector<std::uint16_t> host_loopback_ports;
  // An egress allowlist (net/egress/host_pattern.h): the program's only way out is an HTTP proxy
  // outside the sandbox that reaches these destinations and nothing else. Needs `network`
  // kNone: the namespace stays empty but for its loopback, where the proxy listens.
  std::vector<std::string> allowed_hosts;
  // The installer's allowlist (its package index): when set, the networked prelude, or a
  // session's installer command, reaches out only through the same proxy with this list instead
  // of user-mode networking; the list is replaced by `allowed_hosts` (or nothing) before the
  // next step. The installer's own environment must carry net::egress::proxy_env().
  std::vector<std::string> installer_allowed_hosts;
  std::vector<runtime::BindMount> binds;
  // Host /etc entries the program needs beyond those every sandbox gets (a language's own
  // configuration: python3, R, java-17-openjdk), read-only, where they exist. Plain names only
  // (is_host_etc_name).
  std::vector<std::string> host_etc;
  // The root file system: the host's /usr (empty), or an image's unpacked layers (host
  // directories, top layer first) as a read-only overlay.
  std::vector<std::string> image_layers;
  // For container engines: the image by reference, as the engine knows it.
  std::string image;
  // Where the kernel cannot mount overlayfs in a user namespace (before 5.11), the layers merged
  // into one directory (kept here, made on first use) and bound into the root piece by piece.
  std::string image_flattened_dir;
  runtime::ImageRoot image_root = runtime::ImageRoot::kAuto;
  std::string hostname = "sandbox";
  runtime::SandboxUser user;
  std::optional<std::string> seccomp_profile_path;  // none: the built-in default profile
  std::vector<std::string> seccomp_allow;           // system calls allowed on top of the profile
  std::vector<std::string> seccomp_deny;  // system calls the profile allows but this run must not
  bool require_cgroups = false;           // refuse to run rather than fall back to rlimits
  // A session's: whether a later command may be given a network (an installer's), for which it
  // is made ready (a network fence, resolv.conf, its namespaces kept, an egress proxy). A warm
  // sandbox runs no installer, so it is made as a one-off run without one is.
  bool session_networking = true;
  bool session_installer_proxy = false;  // SandboxShape's

  bool operator==(const TestSpec&) const = default;
};

// `shape` and `plan` as one spec: the plan's steps become the prelude and argv, its timer and
// output cap the limits', the shape's support files follow the plan's files.
TestSpec spec_of(const runtime::SandboxShape& shape, const runtime::RunPlan& plan);

// The spec's sandbox and its call apart (support files go to the shape).
runtime::SandboxShape shape_of(const TestSpec& spec);
runtime::RunPlan plan_of(const TestSpec& spec);

}  // namespace paddock
