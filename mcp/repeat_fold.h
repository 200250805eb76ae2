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

// `text` where most lines are copies of earlier ones, not back to back (processes of a fork bomb
// each printing the same traceback, their lines interleaved: 8,502 characters for one error):
// each line that comes three times or more is shown where it first comes, and one line at the
// end counts the copies left out. Text of mostly distinct lines is returned as it is.
std::string fold_scattered_repeats(std::string_view text);

// What a model reads of a stream: fold_repeats or fold_scattered_repeats, whichever says it in
// less (the first where both do as well: it keeps each run where it came).
std::string fold_output(std::string_view text);

}  // namespace paddock::mcp
