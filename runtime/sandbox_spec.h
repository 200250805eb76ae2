#pragma once

// What one sandboxed run is: everything a backend needs, decided before anything starts.
// Built from CLI flags (and later MCP calls and language policies), then never changed.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace paddock {

enum class NetworkMode {
  kNone,  // a fresh network namespace with only a loopback device, left down
  kUser,  // a fresh network namespace with user-mode networking (pasta): outbound connections
          // to the public network, nothing inbound, nothing of the host or the private networks
          // around it (network_fence.h)
  kHost,  // the host's network: loosens isolation, so it must be asked for by name
};

struct Limits {
  double wall_seconds = 30;                        // the whole sandbox is killed after this
  std::optional<double> cpu_seconds;               // CPU time of each process (RLIMIT_CPU)
  std::uint64_t memory_bytes = 512ull << 20;       // see rlimit_plan.h for how it is enforced
  std::uint32_t pids = 256;                        // processes and threads, init included
  std::uint64_t output_bytes = 1ull << 20;         // captured per stream; the rest is dropped
  std::uint64_t file_size_bytes = 256ull << 20;    // largest file a process may write
  std::uint64_t tmp_bytes = 64ull << 20;           // tmpfs /tmp and /dev/shm, each
  std::uint64_t work_bytes = 256ull << 20;         // tmpfs work directory
  std::uint32_t open_files = 1024;                 // RLIMIT_NOFILE
  std::optional<double> cpus;                      // CPU share (cgroup cpu.max), e.g. 0.5
  std::optional<std::uint64_t> memory_high_bytes;  // cgroup memory.high: throttled above it
  bool allow_swap = false;                         // else cgroup memory.swap.max is 0

  bool operator==(const Limits&) const = default;
};

struct BindMount {
  std::string host_path;     // absolute path on the host
  std::string sandbox_path;  // absolute path inside the sandbox
  bool writable = false;     // read-only unless asked otherwise

  bool operator==(const BindMount&) const = default;
};

// A file the sandbox starts with, inside its work directory (e.g. the code to run).
struct SandboxFile {
  std::string path;  // relative to the work directory
  std::string content;
  unsigned mode = 0644;
  // The same for every call of its language (a policy's support file): a warm sandbox has it
  // before its call comes (runtime/warm_run.h).
  bool support = false;

  bool operator==(const SandboxFile&) const = default;
};

// Directories of the work directory whose files come back with the result (outputs, plots).
struct OutputCollection {
  std::vector<std::string> directories;  // relative to the work directory
  std::uint32_t max_files = 32;
  std::uint64_t max_bytes = 16u << 20;  // all files together

  bool operator==(const OutputCollection&) const = default;
};

// How an image's layers become the root file system.
enum class ImageRoot {
  kAuto,       // overlayfs; a flattened copy where the kernel refuses it (and the result says so)
  kOverlay,    // overlayfs or fail
  kFlattened,  // the flattened copy, always (PADDOCK_IMAGE_ROOT=flattened)
};

// Who the program runs as inside the sandbox. Never root: uid and gid 0 are refused.
struct SandboxUser {
  unsigned uid = 1000;
  unsigned gid = 1000;
  std::string name = "sandbox";

  bool operator==(const SandboxUser&) const = default;
};

struct SandboxSpec {
  std::vector<std::string> argv;  // argv[0] is looked up in PATH inside the sandbox
  // Commands run before argv, in order, in the same sandbox (e.g. a compiler). The first that
  // does not exit 0 ends the run, and the result says which step that was.
  std::vector<std::vector<std::string>> prelude;
  std::vector<SandboxFile> files;
  // The caller's own files: written into the work directory right before the step after the
  // networked prelude (the installer), so that no installer ever sees them; with no installer,
  // before the first step, as `files` are.
  std::vector<SandboxFile> files_after_install;
  OutputCollection collect;               // nothing by default
  std::vector<std::string> env;           // "K=V"; the host environment never leaks in
  std::string workdir = "/work";          // the writable tmpfs work directory, and the cwd
  std::string cwd;                        // start directory; empty means workdir
  std::optional<std::string> stdin_path;  // host file given as stdin; none means /dev/null
  int stdin_fd = -1;                      // or an fd the caller owns (takes precedence)
  Limits limits;
  NetworkMode network = NetworkMode::kNone;  // for the program
  // The first this many prelude commands (a library installer) get user-mode networking; it is
  // taken away again before the next step unless `network` is kUser.
  std::size_t networked_prelude = 0;
  // Destinations user-mode networking refuses by default (private, link-local, loopback and the
  // host's own addresses) that this run may reach anyway: IP addresses or CIDR ranges.
  std::vector<std::string> allowed_private_ranges;
  // TCP ports of the host's loopback that user-mode networking reaches at the sandbox's own
  // 127.0.0.1 (a package mirror on the host). Loosens isolation: only when asked by name.
  std::vector<std::uint16_t> host_loopback_ports;
  // An egress allowlist (egress/host_pattern.h): the program's only way out is an HTTP proxy
  // outside the sandbox that reaches these destinations and nothing else. Needs `network`
  // kNone: the namespace stays empty but for its loopback, where the proxy listens.
  std::vector<std::string> allowed_hosts;
  // The installer's allowlist (its package index): when set, the networked prelude, or a
  // session's installer command, reaches out only through the same proxy with this list instead
  // of user-mode networking; the list is replaced by `allowed_hosts` (or nothing) before the
  // next step. The installer's own environment must carry egress::proxy_env().
  std::vector<std::string> installer_allowed_hosts;
  std::vector<BindMount> binds;
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
  ImageRoot image_root = ImageRoot::kAuto;
  std::string hostname = "sandbox";
  SandboxUser user;
  std::optional<std::string> seccomp_profile_path;  // none: the built-in default profile
  std::vector<std::string> seccomp_allow;           // system calls allowed on top of the profile
  std::vector<std::string> seccomp_deny;  // system calls the profile allows but this run must not
  bool require_cgroups = false;           // refuse to run rather than fall back to rlimits
  // A session's: whether a later command may be given a network (an installer's), for which it
  // is made ready (a network fence, resolv.conf, its namespaces kept, an egress proxy). A warm
  // sandbox runs no installer, so it is made as a one-off run without one is.
  bool session_networking = true;

  bool operator==(const SandboxSpec&) const = default;
};

// Whether `name` may be a SandboxSpec::host_etc entry: one plain name (no '/', not "." or ".."),
// neither a file that holds secrets (shadow, sudoers, ssh...) nor one paddock writes itself
// (passwd, group, hosts...).
bool is_host_etc_name(const std::string& name);

// "none", "user" or "host".
const char* to_string(NetworkMode mode);

// The environment every sandbox starts from; spec.env entries override these by name.
std::vector<std::string> default_sandbox_env();

// `env` with each "K=V" of `overrides` replacing any entry of the same name; a bare "K" (no
// "=") removes K.
std::vector<std::string> merge_env(std::vector<std::string> env,
                                   const std::vector<std::string>& overrides);

}  // namespace paddock
