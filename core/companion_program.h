#pragma once

// Where paddock's own programs (paddock-full, paddock-init) are, found from the running
// executable: beside it (the build folder, the test suites' copies), else in the private
// directory of an installed tree (PREFIX/bin/paddock finds PREFIX/lib/paddock/NAME, the layout
// `cmake --install` and the Debian package make). Relative to the executable rather than a path
// fixed at build time, so the same binary works under /usr, /usr/local or an unpacked .deb.

#include <string>
#include <string_view>
#include <vector>

namespace paddock::core {

// The places to look for NAME, in order; empty if /proc/self/exe cannot be read.
std::vector<std::string> companion_program_paths(std::string_view name);

}  // namespace paddock::core
