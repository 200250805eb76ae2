#include "core/units.h"

#include <sstream>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <iterator>
#include <string>

namespace paddock::core {
namespace {

// Splits "1.5g" into 1.5 and "g"; fails on anything that is not a non-negative decimal.
std::optional<std::pair<double, std::string>> number_and_suffix(std::string_view text) {
  std::size_t end = 0;
  bool digits = false;
  while (end < text.size() && (std::isdigit(static_cast<unsigned char>(text[end])) != 0 ||
                               (text[end] == '.' && end > 0))) {
    digits = digits || text[end] != '.';
    ++end;
  }
  if (!digits) return std::nullopt;
  std::string number(text.substr(0, end));
  if (number.find('.') != number.rfind('.')) return std::nullopt;
  std::string suffix;
  for (char c : text.substr(end))
    suffix += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return std::make_pair(std::stod(number), suffix);
}

}  // namespace

std::optional<std::uint64_t> parse_size(std::string_view text) {
  auto parsed = number_and_suffix(text);
  if (!parsed) return std::nullopt;
  auto [number, suffix] = *parsed;
  if (suffix.ends_with("ib"))
    suffix.resize(suffix.size() - 2);
  else if (suffix.size() > 1 && suffix.ends_with("b"))
    suffix.pop_back();
  double scale = 1;
  if (suffix.empty() || suffix == "b")
    scale = 1;
  else if (suffix == "k")
    scale = 1024.0;
  else if (suffix == "m")
    scale = 1024.0 * 1024;
  else if (suffix == "g")
    scale = 1024.0 * 1024 * 1024;
  else if (suffix == "t")
    scale = 1024.0 * 1024 * 1024 * 1024;
  else
    return std::nullopt;
  double bytes = number * scale;
  if (!std::isfinite(bytes) || bytes >= 1.8e19) return std::nullopt;
  return static_cast<std::uint64_t>(bytes);
}

std::optional<std::uint64_t> parse_count(std::string_view text) {
  if (text.empty() || text.size() > 9) return std::nullopt;
  std::uint64_t value = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return std::nullopt;
    value = value * 10 + static_cast<std::uint64_t>(c - '0');
  }
  return value;
}

std::optional<double> parse_decimal(std::string_view text) {
  auto parsed = number_and_suffix(text);
  if (!parsed || !parsed->second.empty()) return std::nullopt;
  return parsed->first;
}

std::optional<double> parse_seconds(std::string_view text) {
  auto parsed = number_and_suffix(text);
  if (!parsed) return std::nullopt;
  auto [number, suffix] = *parsed;
  if (suffix.empty() || suffix == "s") return number;
  if (suffix == "ms") return number / 1000;
  if (suffix == "m" || suffix == "min") return number * 60;
  if (suffix == "h") return number * 3600;
  return std::nullopt;
}

std::string format_duration(double seconds) {
  // NaN, infinite and negative times (a clock stepped back) are no time paddock measured.
  if (!std::isfinite(seconds) || seconds < 1) return "0 s";
  seconds = std::min(seconds, 1e15);  // some 30 million years: kept within what the cast holds
  struct Unit {
    double seconds;
    const char* name;
  };
  static constexpr Unit kUnits[] = {{86400, "d"}, {3600, "h"}, {60, "min"}};
  for (const auto& unit : kUnits) {
    if (seconds >= unit.seconds) {
      return std::to_string(static_cast<std::uint64_t>(seconds / unit.seconds)) + " " + unit.name;
    }
  }
  return std::to_string(static_cast<std::uint64_t>(seconds)) + " s";
}

std::string format_size(std::uint64_t bytes) {
  if (bytes < 1024) return std::to_string(bytes) + (bytes == 1 ? " byte" : " bytes");
  static constexpr const char* kUnits[] = {"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  double value = static_cast<double>(bytes) / 1024;
  std::size_t unit = 0;
  while (value >= 1024 && unit + 1 < std::size(kUnits)) {
    value /= 1024;
    ++unit;
  }
  char text[32];
  std::snprintf(text, sizeof text, "%.1f %s", value, kUnits[unit]);
  return text;
}

std::string seconds_text(double seconds) {
  std::ostringstream text;
  text << seconds << " s";
  return text.str();
}

}  // namespace paddock::core
