#pragma once

// A call's wall timer as the host keeps it: the one way a timeout in seconds becomes a deadline,
// and a deadline becomes what a poll may wait or what a later step has left. Every backend's
// wait (the native supervisor, the engine's and the cluster's exec), the step runner and the
// live kernel arm it here, so they round alike: a poll never wakes before the deadline, and a
// deadline that passed leaves nothing.

#include <chrono>

namespace paddock::runtime {

using WallClock = std::chrono::steady_clock;

// `seconds` after `start`.
WallClock::time_point deadline_after(double seconds,
                                     WallClock::time_point start = WallClock::now());

// How long poll() may wait for `deadline`: the milliseconds left, rounded up; 0 once it passed.
int poll_ms_until(WallClock::time_point deadline);

// The seconds left until `deadline`; 0 once it passed.
double seconds_until(WallClock::time_point deadline);

}  // namespace paddock::runtime
