#include "config/values.h"

#include "core/units.h"

namespace paddock::config {

core::Result<std::uint64_t> whole_number(const Given& given, std::uint64_t low, std::uint64_t high,
                                         const char* example) {
  auto value = core::parse_count(given.text);
  if (!value || *value < low || *value > high) {
    return given.invalid(
        "a whole number from " + std::to_string(low) + " to " + std::to_string(high), example);
  }
  return *value;
}

core::Result<double> duration(const Given& given, const char* example) {
  auto value = core::parse_seconds(given.text);
  if (!value || *value <= 0) return given.invalid("a duration", example);
  return *value;
}

core::Result<double> duration_or_off(const Given& given, const char* example) {
  auto value = core::parse_seconds(given.text);
  if (!value || *value < 0) return given.invalid("a duration", example);
  return *value;
}

core::Result<std::uint64_t> byte_size(const Given& given, const char* example) {
  auto value = core::parse_size(given.text);
  if (!value || *value == 0) return given.invalid("a size", example);
  return *value;
}

core::Result<std::uint64_t> byte_size(const Given& given, const char* example, std::uint64_t low,
                                      std::uint64_t high) {
  auto value = byte_size(given, example);
  if (value && (*value < low || *value > high)) {
    return given.invalid(
        "a size from " + std::to_string(low) + " to " + std::to_string(high) + " bytes", example);
  }
  return value;
}

core::Result<std::string> one_of(const Given& given, std::initializer_list<const char*> choices,
                                 const char* what, const char* example) {
  for (const char* choice : choices) {
    if (given.text == choice) return given.text;
  }
  return given.invalid(what, example);
}

core::Result<bool> on_or_off(const Given& given) {
  auto value =
      one_of(given, {"on", "off", "1", "0", "true", "false", "yes", "no"}, "on or off", "on");
  if (!value) return value.error();
  return *value == "on" || *value == "1" || *value == "true" || *value == "yes";
}

std::string size_default(std::uint64_t bytes) {
  for (const auto& [shift, unit] : {std::pair{40, "t"}, {30, "g"}, {20, "m"}, {10, "k"}}) {
    std::uint64_t whole = std::uint64_t{1} << shift;
    if (bytes >= whole && bytes % whole == 0) return std::to_string(bytes / whole) + unit;
  }
  return std::to_string(bytes);
}

std::string duration_default(double seconds) {
  auto whole = static_cast<std::uint64_t>(seconds);
  if (static_cast<double>(whole) != seconds) return core::seconds_text(seconds);
  for (const auto& [unit_seconds, unit] : {std::pair{3600, "h"}, {60, "m"}}) {
    if (whole >= static_cast<std::uint64_t>(unit_seconds) && whole % unit_seconds == 0) {
      return std::to_string(whole / unit_seconds) + unit;
    }
  }
  return std::to_string(whole) + "s";
}

}  // namespace paddock::config
