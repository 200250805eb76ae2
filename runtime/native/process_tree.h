#pragma once

// Counting a sandbox's processes from the host's /proc, without the sandbox's help (its init
// serves one request at a time, and a command may be running). The sandbox's init is PID 1 of
// its PID namespace, so every process in it descends from init: orphans are re-parented to it.
//
// Parents come from /proc/PID/stat, which anyone may read, even for a non-dumpable process or
// another user's (unless /proc is mounted with hidepid). /proc/PID/task/TID/children would be
// shorter, but only kernels built with CONFIG_PROC_CHILDREN have it, and cgroups' pids.current
// only sessions that have a cgroup: this works in every mode.

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace paddock::native {

struct ProcessParent {
  pid_t pid = 0;
  pid_t parent = 0;
};

// The parent in a /proc/PID/stat line ("PID (COMM) STATE PPID ..."); 0 when malformed. COMM may
// hold spaces and parentheses, so it ends at the last ')'.
pid_t parent_in_stat(std::string_view stat);

// Whether a /proc/PID/stat line is a zombie's (state Z).
bool zombie_in_stat(std::string_view stat);

// Every process under `proc` with its parent; those that end while being read, and zombies, are
// left out.
std::vector<ProcessParent> read_process_parents(const std::string& proc = "/proc");

// The processes of `processes` that descend from `root`, `root` itself not among them.
std::vector<pid_t> descendants(pid_t root, const std::vector<ProcessParent>& processes);

// How many of `processes` descend from `root`, `root` itself not counted.
std::uint32_t count_descendants(pid_t root, const std::vector<ProcessParent>& processes);

}  // namespace paddock::native
