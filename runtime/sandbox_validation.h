#pragma once

// What a shape and a plan must be for any backend to run them, checked before anything is
// created: every problem a caller can fix, as one clear line. The messages name each setting in
// words, not by a flag of one front-end: `paddock run`, an MCP client and a Python caller read
// the same line. What only one backend needs is checked by that backend on top of this (the
// native one's in runtime/native/spec_validation.h).

#include <string>
#include <string_view>

#include "core/result.h"
#include "runtime/run_plan.h"
#include "runtime/sandbox_shape.h"

namespace paddock::runtime {

// The longest timeout any run may have.
inline constexpr double kLongestWallSeconds = 7 * 24 * 3600;

// What of a shape and a plan a backend carries out beyond what every backend does (its limits,
// files, user, network mode). A request for something its backend lacks is refused here, before
// anything starts, in one line naming the setting, never run without it: a read-only share gone,
// a denied system call allowed, an allowlist's network open. The native backend has each; the
// container backends declare what they lack (ContainerBackend::support).
struct BackendSupport {
  std::string_view backend = "this";  // as messages name it: "docker", "kubernetes"
  bool binds = true;                  // host folders bound in (SandboxShape::binds)
  bool egress_proxy = true;           // an egress allowlist: the program's, or an installer's
  bool trust_bundle = true;           // brokered secrets' trust bundle over the system's
  bool cpu_time = true;               // RLIMIT_CPU (SandboxLimits::cpu_seconds)
  bool memory_high = true;            // throttling below the memory limit (memory.high)
  // A seccomp profile file of this host, and calls allowed or denied on top of the profile.
  bool seccomp_changes = true;
};

// A session's plan has no steps: commands come one by one later.
core::Status validate_sandbox(const SandboxShape& shape, const RunPlan& plan, bool session = false,
                              const BackendSupport& support = {});

// Whether `path` is absolute, with no "." or ".." component and no NUL.
bool is_absolute_clean(const std::string& path);

// Whether `path` is "/" or lies in a directory the sandbox's own system lives in (/proc, /dev,
// /usr, /etc, /bin, /lib...): nothing of the caller's may be put there.
bool is_reserved_path(const std::string& path);

}  // namespace paddock::runtime
