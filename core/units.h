#pragma once

// Parsing of the human-friendly numbers the command line takes.

#include <cstdint>
#include <optional>
#include <string_view>

namespace paddock {

// "512m", "1g", "64k", "1048576", "1.5g" (binary units, case-insensitive, optional "b"/"ib").
std::optional<std::uint64_t> parse_size(std::string_view text);

// "256": a whole number of at most 9 digits (counts: processes, sessions, workers).
std::optional<std::uint64_t> parse_count(std::string_view text);

// "2", "0.5": a plain non-negative decimal, no unit (CPU counts).
std::optional<double> parse_decimal(std::string_view text);

// "2", "0.5", "1.5s", "100ms", "2m".
std::optional<double> parse_seconds(std::string_view text);

}  // namespace paddock
