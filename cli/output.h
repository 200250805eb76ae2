#pragma once

// How the command line talks to its user: everything paddock itself says goes to stderr as
// "paddock: ..." lines; stdout belongs to the program (or to one JSON result).

#include <string>
#include <string_view>

#include "core/write_all.h"

namespace paddock::cli {

// Exit status for paddock's own failures (bad input, a host that cannot sandbox).
inline constexpr int kPaddockFailure = 125;
// `paddock mcp` exits with this when its settings are wrong, before it reads stdin.
inline constexpr int kServerConfigurationError = 2;

// Output goes through write_all (core/write_all.h); a reader that went away is not an error.

// Prints "paddock: MESSAGE" on stderr and returns kPaddockFailure.
int fail(const std::string& message);

// Prints "paddock: MESSAGE" on stderr.
void note(const std::string& message);

}  // namespace paddock::cli
