#pragma once

// Small text helpers that several floors need (header names, config keys, module names).

#include <string>
#include <string_view>

namespace paddock {

// ASCII lower case: for names compared case-insensitively (HTTP headers, registry hosts).
std::string to_lower(std::string_view text);

// Without leading and trailing blanks (spaces, tabs, CR, LF).
std::string trim(std::string_view text);

}  // namespace paddock
