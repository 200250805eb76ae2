#pragma once

// How a session's init clears the sandbox between commands when one process stays resident (a
// live session's kernel bridge, session_init.cc): every process but init, the resident and the
// resident's own children (the kernel it drives) is killed, so that nothing a command or a cell
// started outlives it while the interpreter keeps its state. Runs in init: no allocation, no
// locks; it reads the sandbox's own /proc.

#include <sys/types.h>

namespace paddock::init {

// Kills every process of the sandbox but the caller, PID 1, `resident` and the resident's
// children, until none is left alive (zombies wait for their parents), and reaps what it killed
// but `command` (the command in flight, 0 for none), whose end init's own loop reports. With no
// resident (0), kill(-1) does it in one call and reaps nothing. Returns how many processes it
// killed.
int sweep_all_but_resident(pid_t resident, pid_t command = 0);

// Before a command that gets a network: sweeps, then stops (SIGSTOP) every process left, the
// resident and its children, so that nothing of the interpreter's runs while the network is
// there (a thread the kernel keeps could otherwise start a process between the sweep and the
// command, or continue the kernel with SIGCONT). Waits, up to about a second, until each one is
// stopped; returns false if one did not stop in time.
bool freeze_sandbox(pid_t resident);
// freeze_sandbox without its sweep: an idle session's processes are stopped and kill nothing
// (a process a kernel's thread started between calls lives on, as it does unfrozen). Same wait.
bool stop_sandbox();
// After that command and its sweep, or an idle session's next use: continues (SIGCONT) what
// freeze_sandbox or stop_sandbox stopped.
void thaw_sandbox();

}  // namespace paddock::init
