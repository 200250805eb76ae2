// An idle native session, frozen and thawed (Session::freeze). With a cgroup of its own the
// sandbox is frozen whole by the kernel (cgroup.freeze), init included; without one its init
// stops every other process with SIGSTOP (kStop) and continues them with SIGCONT (kThaw). Either
// way nothing is killed, so a live interpreter keeps its state, and memory stays as it was.

#include <mutex>

#include "runtime/native/cgroup/cgroup_freeze.h"
#include "runtime/native/native_session.h"

namespace paddock::native {

core::Status NativeSession::freeze() {
  // A command or file operation holds mutex_: a session in use is not frozen under it.
  std::unique_lock lock(mutex_, std::try_to_lock);
  if (!lock.owns_lock()) return core::Error{EBUSY, "the session is in use"};
  if (frozen_ != Frozen::kNo) return {};
  if (auto alive = check_alive(); !alive) return alive.error();
  const std::string cgroup = launched_->cgroup ? launched_->cgroup->directory() : std::string();
  if (!cgroup.empty()) {
    cgroup::RealCgroupFs fs;
    auto frozen = cgroup::set_cgroup_frozen(fs, cgroup, true);
    if (!frozen) {
      (void)cgroup::set_cgroup_frozen(fs, cgroup, false);
      return frozen.error();
    }
    frozen_ = Frozen::kCgroup;
    return {};
  }
  auto stopped = ask(init::SessionRequestKind::kStop, init::ChildMessageKind::kFrozen);
  if (!stopped) return stopped.error();
  if (stopped->error != 0) {
    // What did stop goes on again: half a frozen session is no use, and init answers the next
    // request either way.
    (void)ask(init::SessionRequestKind::kThaw, init::ChildMessageKind::kGo);
    return core::system_error("stopping the idle session's processes", stopped->error);
  }
  frozen_ = Frozen::kStopped;
  return {};
}

core::Status NativeSession::thaw() {
  std::lock_guard lock(mutex_);
  Frozen how = frozen_;
  if (how == Frozen::kNo) return {};
  // A sandbox that ended while frozen has nothing to thaw; the next request says it is gone.
  if (!check_alive()) {
    frozen_ = Frozen::kNo;
    return {};
  }
  if (how == Frozen::kCgroup) {
    cgroup::RealCgroupFs fs;
    if (auto thawed = cgroup::set_cgroup_frozen(fs, launched_->cgroup->directory(), false);
        !thawed) {
      return thawed.error();
    }
  } else if (auto sent = ask(init::SessionRequestKind::kThaw, init::ChildMessageKind::kGo); !sent) {
    // Requests are served in order: whatever is asked of init next comes after the SIGCONT.
    return sent.error();
  }
  frozen_ = Frozen::kNo;
  return {};
}

}  // namespace paddock::native
