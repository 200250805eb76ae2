#pragma once

// Freezing a sandbox's cgroup v2 (an idle session, Session::freeze): cgroup.freeze is written,
// then cgroup.events is read until the kernel says every task of the cgroup has stopped
// ("frozen 1") or thawed ("frozen 0"). The kernel keeps counting a frozen cgroup's memory, and
// lets a fatal signal through, so a frozen sandbox can still be killed and removed.

#include <chrono>
#include <string>
#include <string_view>

#include "core/result.h"
#include "runtime/native/cgroup/cgroup_fs.h"

namespace paddock::cgroup {

// Whether cgroup.events text says the cgroup is frozen (its "frozen" line reads 1).
bool cgroup_events_frozen(std::string_view events);

// Writes 1 (or 0) to `directory`/cgroup.freeze and waits, up to `wait`, until cgroup.events
// agrees. ETIMEDOUT when it does not in time (a task in an uninterruptible sleep, such as one
// stuck on a slow file system): the write stays, and the caller thaws.
core::Status set_cgroup_frozen(CgroupFs& fs, const std::string& directory, bool frozen,
                               std::chrono::milliseconds wait = std::chrono::seconds(5));

}  // namespace paddock::cgroup
