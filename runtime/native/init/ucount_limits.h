#pragma once

// In the sandbox's init: lowers the sandbox user namespace's own ucounts limits
// (kSandboxUcountLimits, shared_budgets.h) through /proc/sys/user/, which the kernel lets a
// process write that has CAP_SYS_RESOURCE in that user namespace (kernel/ucount.c,
// set_permissions). The files are the current user namespace's whichever procfs shows them, so
// the procfs paddock-init starts with serves: the sandbox's own /proc/sys is read-only once
// the mount plan has run. Allocation-free (child.h).

namespace paddock::init {

// 0, or an errno with the index into kSandboxUcountLimits of the file that could not be
// written in `*failed`.
int apply_ucount_limits(int* failed);

}  // namespace paddock::init
