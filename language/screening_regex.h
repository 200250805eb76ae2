#pragma once

// The regex type of screening rules and language syntax (std::regex, ECMAScript).

#include <cctype>
#include <regex>
#include <string>

namespace paddock {

// std::regex_traits with a cheap transform_primary. The standard one calls strxfrm for each of
// the 256 characters of every bracket expression (\s, \w, [...]) a pattern compiles, which made
// loading the built-in policies take milliseconds. Only equivalence classes ([[=a=]]) use it,
// and they keep their meaning in the C locale: the character, case-folded.
struct ScreeningRegexTraits : std::regex_traits<char> {
  template <typename Iterator>
  string_type transform_primary(Iterator first, Iterator last) const {
    string_type folded(first, last);
    for (char& c : folded) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return folded;
  }
};
using ScreeningRegex = std::basic_regex<char, ScreeningRegexTraits>;

}  // namespace paddock
