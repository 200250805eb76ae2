#pragma once

// Parsing of the human-friendly numbers the command line takes, and their writing for people.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace paddock::core {

// "512m", "1g", "64k", "1048576", "1.5g" (binary units, case-insensitive, optional "b"/"ib").
std::optional<std::uint64_t> parse_size(std::string_view text);

// "256": a whole number of at most 9 digits (counts: processes, sessions, workers).
std::optional<std::uint64_t> parse_count(std::string_view text);

// "2", "0.5": a plain non-negative decimal, no unit (CPU counts).
std::optional<double> parse_decimal(std::string_view text);

// "2", "0.5", "1.5s", "100ms", "2m".
std::optional<double> parse_seconds(std::string_view text);

// "300 s", "0.5 s": a number of seconds as people read it.
std::string seconds_text(double seconds);

// "0 s", "42 s", "12 min", "3 h", "2 d": a duration in whole units of the largest that fits, cut
// down (an idle time of 59.9 s is "59 s", not a minute it has not reached).
std::string format_duration(double seconds);

// "812 bytes", "1.5 KiB", "20.0 MiB", "1.0 GiB": a size as people read it (binary units).
std::string format_size(std::uint64_t bytes);

}  // namespace paddock::core
