#pragma once

// What the parts of the sandbox's init (child.cc, privilege_drop.cc, payload_process.cc,
// sandbox_spawn.cc, init_steps.cc, init_network.cc, session_init.cc, work_paths.cc) share with each
// other and nothing else. Everything here runs inside the sandbox, where nothing may allocate
// (child.h).

#include <linux/filter.h>
#include <linux/openat2.h>
#include <sys/types.h>

#include <cstddef>
#include <cstdint>

#include "runtime/native/init/channel.h"
#include "runtime/native/init/child.h"

namespace paddock::init::child_parts {

// How init resolves a path beneath the work directory (openat2), with RESOLVE_NO_SYMLINKS added
// where no symlink may be followed.
inline constexpr std::uint64_t kResolve = RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS | RESOLVE_NO_XDEV;

// Reports a setup failure on the channel and exits.
[[noreturn]] void fail(int channel, SetupPhase phase, int error, int detail = 0);

extern bool privileges_dropped;        // privilege_drop.cc
extern bool program_filter_inherited;  // privilege_drop.cc

void install_filter(const ChildPlan& plan, const sock_fprog& filter);
// The sandbox user's ids, with the parent-death signal set again after the switch.
void take_identity(const ChildPlan& plan);

// Starts step `step` with its streams; its PID.
pid_t start_step(const ChildPlan& plan, std::size_t step);
[[noreturn]] void run_steps(const ChildPlan& plan, std::size_t step, pid_t payload);

int bring_loopback_up();
extern int late_network_source;  // init_network.cc
int make_late_network(int init_socket);
void join_late_network(int channel);
int send_proxy_listener(int channel, std::uint16_t port);

}  // namespace paddock::init::child_parts
