#pragma once

// A Python traceback in a program's output, with its library frames folded as a live cell's are
// (runtime/kernel/kernel_bridge.py): the frames of the user's code (/work, <string>, <stdin>) and
// the last frame (where it failed) stay; each run of other frames becomes one line naming them.
// A no-network urllib error took a model 4,196 characters from a fresh call against 1,432 from a
// live cell; folded, both say the same in about the same room.

#include <string>
#include <string_view>

namespace paddock::language {

// `text` with every traceback's library frames folded ("  [... 7 library frames left out:
// urllib/request.py:216 in urlopen, urllib/request.py:519 in open, ...]"); other text as it is.
std::string fold_library_frames(std::string_view text);

}  // namespace paddock::language
