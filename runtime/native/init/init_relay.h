#pragma once

// paddock-init's outer half, PID 1 of the sandbox's outer PID namespace. It holds the only
// channel to paddock and does nothing but carry packets (and the fds riding along) between
// paddock and the sandbox's init, which lives in a PID namespace of its own where the relay
// cannot be seen or signalled. Its seccomp filter (policies/seccomp/init_relay.json) allows
// just that: a relay that some bug let the program reach could still not open, map, exec,
// connect or create anything.

#include <sys/types.h>

namespace paddock {

// Relays until the sandbox's init has gone (its end of `init_socket` closed), reaps it and
// exits; exits at once when paddock has gone. Installs the relay's filter first. `init_before`
// (or -1): the channel init was handed `init_socket` in place of, from which what init sent
// before it took the new one is relayed too.
[[noreturn]] void relay_until_init_exits(int paddock_channel, int init_socket, pid_t init,
                                         int init_before = -1);

}  // namespace paddock
