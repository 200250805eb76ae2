#pragma once

// Times as people and logs read them: RFC 3339 in UTC.

#include <chrono>
#include <string>

namespace paddock::core {

enum class UtcPrecision { kSeconds, kMilliseconds };

// "2026-11-27T17:20:54Z", or "2026-11-27T17:20:54.123Z" with milliseconds.
std::string utc_text(std::chrono::system_clock::time_point when,
                     UtcPrecision precision = UtcPrecision::kSeconds);
std::string utc_now(UtcPrecision precision = UtcPrecision::kSeconds);

}  // namespace paddock::core
