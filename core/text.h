#pragma once

// Small text helpers that several floors need (header names, config keys, module names).

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace paddock::core {

// ASCII lower case: for names compared case-insensitively (HTTP headers, registry hosts).
std::string to_lower(std::string_view text);

// Without leading and trailing blanks (spaces, tabs, CR, LF).
std::string trim(std::string_view text);

// The items with `separator` between them: "a, b, c".
std::string join(const std::vector<std::string>& items, std::string_view separator);

// "1 library", "0 libraries", "3 libraries": a count with its noun in the form it takes.
std::string counted(std::uint64_t count, std::string_view singular, std::string_view plural);

}  // namespace paddock::core
