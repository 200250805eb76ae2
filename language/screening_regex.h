#pragma once

// The patterns of screening rules and of a language's import syntax: RE2, which matches in time
// linear in the text whatever the pattern (std::regex backtracks, and recursed once per character
// until long lines overflowed its stack). Perl-like syntax without backreferences or lookaround;
// ^ and $ match at line boundaries, and . never crosses a newline.

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"

namespace re2 {
class RE2;
}

namespace paddock::language {

class ScreeningRegex {
 public:
  // The compiled pattern; the error says what RE2 could not compile.
  static core::Result<ScreeningRegex> compile(const std::string& pattern);

  // A match of the whole pattern and its groups, as offsets into the text searched; a group
  // that did not take part is empty with `matched` false.
  struct Span {
    std::size_t begin = 0;
    std::size_t end = 0;
    bool matched = false;
  };
  // The first match at or after `from`, with `groups` groups after the whole match (fewer if the
  // pattern has fewer); empty when there is none.
  [[nodiscard]] std::vector<Span> find(std::string_view text, std::size_t from,
                                       int groups = 0) const;
  // Whether the whole of `text` matches.
  [[nodiscard]] bool matches_whole(std::string_view text) const;
  [[nodiscard]] int group_count() const;

 private:
  std::shared_ptr<const re2::RE2> regex_;  // shared: policies are copied, an RE2 cannot be
};

}  // namespace paddock::language
