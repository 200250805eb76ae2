#pragma once

// The pieces a sandbox's shape (sandbox_shape.h) and a call's plan (run_plan.h) are made of.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace paddock::runtime {

enum class NetworkMode {
  kNone,  // a fresh network namespace with only a loopback device, left down
  kUser,  // a fresh network namespace with user-mode networking (pasta): outbound connections
          // to the public network, nothing inbound, nothing of the host or the private networks
          // around it (network_fence.h)
  kHost,  // the host's network: loosens isolation, so it must be asked for by name
};

// The limits that belong to the sandbox (its shape): the same for every call it runs.
struct SandboxLimits {
  std::optional<double> cpu_seconds;             // CPU time of each process (RLIMIT_CPU)
  std::uint64_t memory_bytes = 512ull << 20;     // see rlimit_plan.h for how it is enforced
  std::uint32_t pids = 256;                      // processes and threads, init included
  std::uint64_t file_size_bytes = 256ull << 20;  // largest file a process may write
  std::uint64_t tmp_bytes = 64ull << 20;         // tmpfs /tmp and /dev/shm, each
  std::uint64_t work_bytes = 256ull << 20;       // tmpfs work directory
  std::uint64_t work_files = 0;     // its files and folders at most (nr_inodes); 0: tmpfs's default
  std::uint32_t open_files = 1024;  // RLIMIT_NOFILE
  std::optional<double> cpus;       // CPU share (cgroup cpu.max), e.g. 0.5
  std::optional<std::uint64_t> memory_high_bytes;  // cgroup memory.high: throttled above it
  bool allow_swap = false;                         // else cgroup memory.swap.max is 0

  bool operator==(const SandboxLimits&) const = default;
};

// A call's timeout when neither its policy, the operator nor the call sets one: written here
// only, and every timer that has a default starts from it.
inline constexpr double kDefaultWallSeconds = 30;

// Every limit, as policies, the operator's settings and the audit log know them: the sandbox's,
// and a call's timer and output cap (RunPlan's wall_seconds and output_bytes).
struct Limits : SandboxLimits {
  double wall_seconds = kDefaultWallSeconds;  // the whole sandbox is killed after this
  std::uint64_t output_bytes = 1ull << 20;    // captured per stream; the rest is dropped

  bool operator==(const Limits&) const = default;
};

// Where TLS clients find the system's trusted authorities (Debian's path), which a sandbox with
// brokered secrets sees holding the server's own authority too (SandboxShape::trust_bundle).
inline constexpr const char* kSandboxTrustBundle = "/etc/ssl/certs/ca-certificates.crt";

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
  // The same for every call of its language (a policy's support file, SandboxShape's
  // support_files): a warm sandbox has it before its call comes (runtime/warm_run.h).
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

// Whether `name` may be a SandboxShape::host_etc entry: one plain name (no '/', not "." or ".."),
// neither a file that holds secrets (shadow, sudoers, ssh...) nor one paddock writes itself
// (passwd, group, hosts...).
bool is_host_etc_name(const std::string& name);

// "none", "user" or "host".
const char* to_string(NetworkMode mode);

// The environment every sandbox starts from; a plan's env entries override these by name.
std::vector<std::string> default_sandbox_env();

// `env` with each "K=V" of `overrides` replacing any entry of the same name; a bare "K" (no
// "=") removes K.
std::vector<std::string> merge_env(std::vector<std::string> env,
                                   const std::vector<std::string>& overrides);

}  // namespace paddock::runtime
