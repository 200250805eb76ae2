#pragma once

// paddock-init's outer half, PID 1 of the sandbox's outer PID namespace. It holds the only
// channel to paddock and does nothing but carry packets (and the fds riding along) between
// paddock and the sandbox's init, which lives in a PID namespace of its own where the relay
// cannot be seen or signalled. Its seccomp filter (policies/seccomp/init_relay.json) allows
// just that: a relay that some bug let the program reach could still not open, map, exec,
// connect or create anything.

//
// It is also the supervisor of the sandbox's seccomp filter, when init could install it in its
// notify form (init/seccomp_notify.h) and sent the listener here (kSeccompListener). For each
// refused call it reads the call's number and arguments, nothing else (never the caller's
// memory), answers with the errno the filter's errno form gives for them, never with "continue"
// or a success, and counts it by number, unless the answer is ENOSYS (a call the filter pretends
// does not exist so that libc falls back is no refusal a program notices). The counts ride along
// with the next kPayloadExited to paddock (RefusedCalls) and start again at each command. The
// relay sits outside the program's PID namespace and in the sandbox's cgroup: a flood of refused
// calls costs the sandbox's own CPU time, not the server's, and the program cannot signal or
// inspect its supervisor.

#include <linux/filter.h>
#include <sys/types.h>

namespace paddock::init {

// Relays until the sandbox's init has gone (its end of `init_socket` closed), reaps it and
// exits; exits at once when paddock has gone. Installs the relay's filter first. `init_before`
// (or -1): the channel init was handed `init_socket` in place of, from which what init sent
// before it took the new one is relayed too. `refusals`: the program's filter in its errno
// form, whose answers the relay gives to notified calls.
[[noreturn]] void relay_until_init_exits(int paddock_channel, int init_socket, pid_t init,
                                         int init_before, const sock_fprog& refusals);

}  // namespace paddock::init
