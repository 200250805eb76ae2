#include "runtime/wall_timer.h"

#include <algorithm>
#include <cstdint>
#include <limits>

namespace paddock::runtime {

WallClock::time_point deadline_after(double seconds, WallClock::time_point start) {
  return start +
         std::chrono::duration_cast<WallClock::duration>(std::chrono::duration<double>(seconds));
}

int poll_ms_until(WallClock::time_point deadline) {
  auto now = WallClock::now();
  if (now >= deadline) return 0;
  auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - now);
  // Truncated to whole milliseconds, so one more: waking early would poll again for nothing.
  return static_cast<int>(
      std::min<std::int64_t>(left.count() + 1, std::numeric_limits<int>::max()));
}

double seconds_until(WallClock::time_point deadline) {
  return std::max(0.0, std::chrono::duration<double>(deadline - WallClock::now()).count());
}

}  // namespace paddock::runtime
