#include "runtime/native/cgroup/cgroup_freeze.h"

#include <thread>

namespace paddock::cgroup {

bool cgroup_events_frozen(std::string_view events) {
  for (std::size_t at = 0; at < events.size();) {
    std::size_t end = events.find('\n', at);
    if (end == std::string_view::npos) end = events.size();
    std::string_view line = events.substr(at, end - at);
    if (line.substr(0, 7) == "frozen ") return line.substr(7) == "1";
    at = end + 1;
  }
  return false;
}

core::Status set_cgroup_frozen(CgroupFs& fs, const std::string& directory, bool frozen,
                               std::chrono::milliseconds wait) {
  const std::string what = frozen ? "freezing" : "thawing";
  if (auto written = fs.write(directory + "/cgroup.freeze", frozen ? "1" : "0"); !written) {
    return written.error().context(what + " cgroup " + directory);
  }
  // The kernel stops each task at its next return to user space: a moment, not a fixed time.
  auto deadline = std::chrono::steady_clock::now() + wait;
  for (;;) {
    auto events = fs.read(directory + "/cgroup.events");
    if (!events) return events.error().context(what + " cgroup " + directory);
    if (cgroup_events_frozen(*events) == frozen) return {};
    if (std::chrono::steady_clock::now() >= deadline) {
      return core::Error{
          ETIMEDOUT, what + " cgroup " + directory + ": cgroup.events still says frozen " +
                         (frozen ? "0" : "1") + " after " + std::to_string(wait.count()) + " ms"};
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
}

}  // namespace paddock::cgroup
