#pragma once

// The sandbox's filter in its "notify" form, and the one answer its supervisor may give.
//
// Every call the filter refuses with an errno is, in the notify form, handed to a supervisor
// (SECCOMP_RET_USER_NOTIF) instead, so that paddock can count it by name. The supervisor finds
// the errno the filter would have given by running the filter itself over the call's number and
// arguments (refused_errno), and answers with that error: never with "continue", never with a
// success. Allowed calls never reach it; kill actions stay kill actions. With the supervisor
// gone (its listener closed) the kernel fails every notified call with ENOSYS: refused still.
//
// Allocation-free: paddock-init uses both, with no libseccomp.

#include <linux/filter.h>
#include <linux/seccomp.h>

#include <cstddef>

namespace paddock::seccomp {

// Writes `program` into `out` (room for `count` instructions) with each return of an errno
// replaced by a return of SECCOMP_RET_USER_NOTIF. False, and `out` not to be used, when the
// program returns through a register rather than a constant (not what libseccomp writes): then
// which calls it refuses cannot be rewritten safely.
[[nodiscard]] bool to_notify_program(const sock_filter* program, std::size_t count,
                                     sock_filter* out);

// The errno `program` (the errno form) returns for `data`, in 1..SECCOMP_RET_DATA. EPERM when it
// would return anything else (a call the notify form sent here can only be one it refuses; if
// the two ever disagreed, the answer is still a refusal) or the program is malformed.
[[nodiscard]] int refused_errno(const sock_filter* program, std::size_t count,
                                const seccomp_data& data);

}  // namespace paddock::seccomp
