#include "core/utc_time.h"

#include <cstdio>
#include <ctime>

namespace paddock::core {

std::string utc_text(std::chrono::system_clock::time_point when, UtcPrecision precision) {
  std::time_t seconds = std::chrono::system_clock::to_time_t(when);
  std::tm utc{};
  gmtime_r(&seconds, &utc);
  char text[40];
  std::size_t length = std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%S", &utc);
  if (precision == UtcPrecision::kMilliseconds) {
    auto millis =
        std::chrono::duration_cast<std::chrono::milliseconds>(when.time_since_epoch()).count() %
        1000;
    length += static_cast<std::size_t>(
        std::snprintf(text + length, sizeof text - length, ".%03d", static_cast<int>(millis)));
  }
  return std::string(text, length) + "Z";
}

std::string utc_now(UtcPrecision precision) {
  return utc_text(std::chrono::system_clock::now(), precision);
}

}  // namespace paddock::core
