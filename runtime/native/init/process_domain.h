#pragma once

// A Landlock domain of its own for one process of the sandbox and what it starts: from inside
// it, no other process of the sandbox can be inspected (/proc/PID/environ, mem, fd: the kernel's
// ptrace access checks) or, where the kernel has Landlock's scopes (ABI 6, Linux 6.12), signalled
// or reached through an abstract unix socket. It restricts nothing else: no file access is
// handled. A live session's installer runs in one, so that the package code it runs cannot read
// the stopped interpreter's secrets or wake it while the network is there.
//
// Called in the payload after clone, before exec: allocation-free, and reports an errno.

namespace paddock::init {

// 0, or the errno that says why the domain could not be entered: ENOSYS (a kernel built without
// Landlock), EOPNOTSUPP (Landlock not enabled at boot: lsm=), or what restrict_self said.
int enter_own_process_domain();

}  // namespace paddock::init
