#pragma once

// Per-sandbox cgroup v2 control: each sandbox is cloned straight into a cgroup of its own
// (CLONE_INTO_CGROUP) under paddock's base cgroup, with memory, pids and CPU limits for the
// sandbox as a whole; afterwards the cgroup tells what the sandbox used, and goes.
//
// Layout, where B is the cgroup paddock runs in (delegated to it, or any as root):
//   B/cgroup.subtree_control   +memory +pids +cpu, enabled by paddock
//   B/paddock-<pid>            the leaf paddock moves itself into when B is not the root
//                              cgroup (a cgroup with controllers enabled for its children may
//                              not hold processes itself: the "no internal process" rule)
//   B/sandbox-<pid>-<n>        one per sandbox, removed after the run; left-overs of a paddock
//                              that was killed are removed by the next paddock that starts

#include <sys/types.h>

#include <atomic>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"
#include "runtime/native/cgroup/cgroup_fs.h"
#include "runtime/native/cgroup/cgroup_host.h"
#include "runtime/sandbox_parts.h"

namespace paddock::cgroup {

struct CgroupWrite {
  std::string file;  // relative to the sandbox's cgroup, e.g. "memory.max"
  std::string value;
};

// The interface files to write for `limits`. memory.swap.max only where the kernel has it.
std::vector<CgroupWrite> plan_cgroup_limits(const runtime::SandboxLimits& limits,
                                            bool has_swap_file);

struct CgroupUsage {
  bool oom_killed = false;
  std::uint64_t memory_peak_bytes = 0;  // 0 where the kernel has no memory.peak (before 5.19)
  std::optional<std::int64_t> cpu_usec;
  // How often a fork or clone failed because pids.max was reached (pids.events "max").
  std::uint64_t pids_max_events = 0;
};

// From the text of memory.events, memory.peak, cpu.stat and pids.events (any may be empty).
CgroupUsage parse_cgroup_usage(std::string_view memory_events, std::string_view memory_peak,
                               std::string_view cpu_stat, std::string_view pids_events = {});

struct CgroupAssessment {
  bool usable = false;
  std::string reason;       // why not, as one line a user can act on; or what will be used
  std::string base;         // the base cgroup directory
  bool needs_leaf = false;  // paddock must move itself into B/paddock-<pid> first
};

// Can sandboxes get cgroups here? Reads only; `paddock doctor` shows the answer.
CgroupAssessment assess_cgroups(CgroupFs& fs, const CgroupLocation& where, pid_t self);

class CgroupManager {
 public:
  // Tells whether a pid belongs to a live paddock (stale cgroups of dead ones are removed).
  using LivenessCheck = std::function<bool(pid_t)>;

  CgroupManager(CgroupFs& fs, CgroupLocation where, pid_t self, LivenessCheck alive);

  // Moves paddock into its leaf if it has to, enables the controllers and removes stale
  // sandbox cgroups. Afterwards usable() says whether sandboxes get cgroups.
  void prepare();
  [[nodiscard]] bool usable() const { return usable_; }
  [[nodiscard]] const std::string& reason() const { return reason_; }

  // Creates B/sandbox-<pid>-<n> with the limits written; returns its directory.
  core::Result<std::string> create_sandbox(const runtime::SandboxLimits& limits);
  CgroupUsage usage(const std::string& directory);
  // Kills whatever is left in the cgroup (cgroup.kill, else freeze and kill every pid) and
  // removes it.
  core::Status destroy(const std::string& directory);

 private:
  void remove_stale();

  CgroupFs& fs_;
  CgroupLocation where_;
  pid_t self_;
  LivenessCheck alive_;
  bool usable_ = false;
  std::string reason_;
  std::string base_;
  std::atomic<std::uint64_t> next_id_{0};
};

// The process's manager for the real cgroupfs, prepared on first use (thread-safe).
CgroupManager& host_cgroups();

}  // namespace paddock::cgroup
