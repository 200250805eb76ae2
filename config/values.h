#pragma once

// The parsers the rows share, and how a typed default is written in a row (as a user would type
// it, so that --help and the docs show what the flag takes). Each error names the value as
// written.

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <type_traits>

#include "config/settings.h"
#include "core/result.h"

namespace paddock::config {

core::Result<std::uint64_t> whole_number(const Given& given, std::uint64_t low, std::uint64_t high,
                                         const char* example);

// A duration over 0.
core::Result<double> duration(const Given& given, const char* example);

// A duration where 0 turns something off.
core::Result<double> duration_or_off(const Given& given, const char* example);

// A size over 0, or within [low, high].
core::Result<std::uint64_t> byte_size(const Given& given, const char* example);
core::Result<std::uint64_t> byte_size(const Given& given, const char* example, std::uint64_t low,
                                      std::uint64_t high);

core::Result<std::string> one_of(const Given& given, std::initializer_list<const char*> choices,
                                 const char* what, const char* example);

// on, off, 1, 0, true, false, yes or no: what a switch's variable takes.
core::Result<bool> on_or_off(const Given& given);

// 512 MiB -> "512m", 1 GiB -> "1g", 1000 -> "1000": the largest unit that divides it.
std::string size_default(std::uint64_t bytes);

// 300 -> "5m", 30 -> "30s", 604800 -> "168h": the largest of s, m and h that divides it.
std::string duration_default(double seconds);

template <typename T>
struct IsOptional : std::false_type {};
template <typename T>
struct IsOptional<std::optional<T>> : std::true_type {};

// A parsed value into its field (converted to the field's type), or the parser's error.
template <typename Field, typename Value>
core::Status assign(Field& field, const core::Result<Value>& value) {
  if (!value) return value.error();
  if constexpr (IsOptional<Field>::value) {
    field = static_cast<typename Field::value_type>(*value);
  } else {
    field = static_cast<Field>(*value);
  }
  return {};
}

}  // namespace paddock::config
