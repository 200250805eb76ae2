#pragma once

// What a sandbox is: its root, mounts, identity, limits, network and system call filter, and the
// files every call of its language finds there. Nothing of one call (its code, steps,
// environment, stdin, timers) is in it, so that two calls of equal shapes run in
// interchangeable sandboxes: it is what a session is opened from and what the warm pool keys on.
// Built once (language/spec_builder.h), compared, never patched.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "runtime/sandbox_parts.h"

namespace paddock::runtime {

struct SandboxShape {
  // The root file system: the host's /usr (empty), or an image's unpacked layers (host
  // directories, top layer first) as a read-only overlay.
  std::vector<std::string> image_layers;
  // For container engines: the image by reference, as the engine knows it.
  std::string image;
  // Where the kernel cannot mount overlayfs in a user namespace (before 5.11), the layers merged
  // into one directory (kept here, made on first use) and bound into the root piece by piece.
  std::string image_flattened_dir;
  ImageRoot image_root = ImageRoot::kAuto;
  std::vector<BindMount> binds;
  // Host /etc entries the program needs beyond those every sandbox gets (a language's own
  // configuration: python3, R, java-17-openjdk), read-only, where they exist. Plain names only
  // (is_host_etc_name).
  std::vector<std::string> host_etc;
  std::string workdir = "/work";  // the writable tmpfs work directory, and the default cwd
  std::string hostname = "sandbox";
  SandboxUser user;
  SandboxLimits limits;
  NetworkMode network = NetworkMode::kNone;  // for the program
  // Destinations user-mode networking refuses by default (private, link-local, loopback and the
  // host's own addresses) that this sandbox may reach anyway: IP addresses or CIDR ranges.
  std::vector<std::string> allowed_private_ranges;
  // TCP ports of the host's loopback that user-mode networking reaches at the sandbox's own
  // 127.0.0.1 (a package mirror on the host). Loosens isolation: only when asked by name.
  std::vector<std::uint16_t> host_loopback_ports;
  // Whether paddock may open previews of the sandbox's ports (docs/previews.md): only then does
  // a session's init hand paddock a socket factory, so a server without --allow-preview holds
  // no descriptor and the sandbox no socket for it.
  bool previews = false;
  // An egress allowlist (net/egress/host_pattern.h): the program's only way out is an HTTP proxy
  // outside the sandbox that reaches these destinations and nothing else. Needs `network`
  // kNone: the namespace stays empty but for its loopback, where the proxy listens.
  std::vector<std::string> allowed_hosts;
  // paddock mcp --ask network: the sandbox gets the proxy even with no allowlist, so that a
  // destination it tries can be asked about (RunPlan::consent, Session::set_consent).
  bool ask_network = false;
  // Brokered secrets (docs/secrets.md): a host file (the host's authorities and the server's
  // own) bound read-only over the system bundle (kSandboxTrustBundle) where the root has one.
  // Certificates only; empty: none.
  std::string trust_bundle;
  // A session's: whether a later command may be given a network (an installer's), for which it
  // is made ready (a network fence, resolv.conf, its namespaces kept). A warm sandbox runs no
  // installer, so it is made as a one-off run without one is.
  bool session_networking = true;
  // A session's: its installer commands reach out only through an egress proxy, with the list
  // each brings (ExecRequest::allowed_hosts), so the sandbox is made with one.
  bool session_installer_proxy = false;
  std::optional<std::string> seccomp_profile_path;  // none: the built-in default profile
  std::vector<std::string> seccomp_allow;           // system calls allowed on top of the profile
  std::vector<std::string> seccomp_deny;  // system calls the profile allows but this one must not
  bool require_cgroups = false;           // refuse to run rather than fall back to rlimits
  // The language's own files (a policy's support files), the same for every call: in the work
  // directory before any call's (SandboxFile::support is set on each).
  std::vector<SandboxFile> support_files;

  bool operator==(const SandboxShape&) const = default;
};

}  // namespace paddock::runtime
