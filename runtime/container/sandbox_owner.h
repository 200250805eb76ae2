#pragma once

// Who made a sandbox container or pod, written into its labels, so that a paddock connecting
// later can tell what a dead paddock left behind from a live one's sandboxes. An engine or a
// cluster may be shared: by paddocks on other machines (a remote DOCKER_HOST, a cluster), by
// servers in separate containers of one machine sharing a socket, by two machines with the same
// hostname. Only what is provably dead is deleted: same machine and boot, same PID namespace,
// and its process gone or replaced by another (a different start time). Anything else, labels
// of another version included, is left alone.

#include <sys/types.h>

#include <functional>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

namespace paddock::container {

struct SandboxOwner {
  std::string instance;       // random, one per paddock process
  std::string machine;        // /etc/machine-id (the hostname where there is none)
  std::string boot;           // /proc/sys/kernel/random/boot_id
  std::string pid_namespace;  // the inode of /proc/self/ns/pid
  std::string pid;
  std::string started;  // the process's start time, in clock ticks since boot (/proc/PID/stat)
};

// This process, read once.
const SandboxOwner& this_paddock();

// The labels that name `owner` (io.paddock.instance, .machine, .boot, .pidns, .pid, .started).
nlohmann::json owner_labels(const SandboxOwner& owner);

// A process's start time on this machine, or nothing when there is no such process.
std::optional<std::string> process_start_time(pid_t pid);

// Whether the owner `labels` name is provably gone, as seen from `self`. Pure: the process table
// is asked through `start_time_of`.
bool owner_provably_dead(const nlohmann::json& labels, const SandboxOwner& self,
                         const std::function<std::optional<std::string>(pid_t)>& start_time_of);

}  // namespace paddock::container
