#pragma once

// How the command line talks to its user: everything paddock itself says goes to stderr as
// "paddock: ..." lines; stdout belongs to the program (or to one JSON result).

#include <string>
#include <string_view>

namespace paddock::cli {

// Exit status for paddock's own failures (bad input, a host that cannot sandbox).
inline constexpr int kPaddockFailure = 125;

// Writes all of `data`, retrying on EINTR; gives up quietly when the reader went away.
void write_all(int fd, std::string_view data);

// Prints "paddock: MESSAGE" on stderr and returns kPaddockFailure.
int fail(const std::string& message);

// Prints "paddock: MESSAGE" on stderr.
void note(const std::string& message);

}  // namespace paddock::cli
