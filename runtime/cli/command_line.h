#pragma once

// The `paddock` command line, parsed into plain requests (so tests can check parsing without
// running anything). Usage errors become one line that names the problem and where to look.

#include <string>
#include <variant>

#include "core/result.h"
#include "sandbox_spec.h"

namespace paddock::cli {

struct RunRequest {
  SandboxSpec spec;
  std::string backend = "native";
  bool json = false;
  bool stdin_from_terminal = false;  // --stdin -: paddock's own stdin becomes the program's
};

struct DoctorRequest {
  bool json = false;
};

// --help or --version: print `text` to stdout and exit 0.
struct InfoRequest {
  std::string text;
};

using Request = std::variant<RunRequest, DoctorRequest, InfoRequest>;

Result<Request> parse_command_line(int argc, const char* const* argv);

}  // namespace paddock::cli
