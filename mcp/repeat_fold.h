#pragma once

// Output a model reads, with runs of repeated lines folded: a loop that prints the same
// warning, or forks that each die with the same traceback, says it once and then how many more
// times, instead of filling the context with copies.

#include <string>
#include <string_view>

namespace paddock::mcp {

// `text` with every run of a line (or of a block of up to 16 lines) repeated back to back
// shown once, then "… the same line 1,412 more times" (or "… the same 4 lines 20 more
// times"). A line or block is folded when it comes three times or more in a row.
std::string fold_repeats(std::string_view text);

}  // namespace paddock::mcp
