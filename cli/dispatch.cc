#include "cli/dispatch.h"

#include <unistd.h>

#include <string_view>

#include "cli/command_line.h"
#include "cli/doctor_command.h"
#include "cli/image_command.h"
#include "cli/open_file_limit.h"
#include "cli/output.h"
#include "cli/policy_command.h"
#include "cli/run_command.h"
#include "cli/wrap_command.h"

namespace paddock::cli {
namespace {

// Commands the lean executable hands to paddock-full: a container backend, doctor (which looks
// at them too) and the MCP server, which pulls images on first use and hashes code for its audit
// log. A server starts once and runs for long, so the lean start matters only to `run`.
bool needs_all_backends(const Request& request) {
  if (std::holds_alternative<DoctorRequest>(request)) return true;
  if (std::holds_alternative<McpRequest>(request)) return true;
  // A wrapped server lives as long as its client: its proxy, broker and audit log are
  // paddock-full's, and the hand-over costs its start a millisecond.
  if (std::holds_alternative<WrapRequest>(request)) return true;
  if (const auto* run = std::get_if<RunRequest>(&request)) return run->backend != "native";
  return false;
}

}  // namespace

int dispatch(int argc, char** argv, const Executable& executable) {
  auto request = parse_command_line(argc, argv);
  if (!request) {
    int status = fail(request.error().message);
    // A server's command line is its configuration: a client that starts `paddock mcp` with a
    // flag it does not know gets the status every other configuration error of the server has.
    bool server =
        argc > 1 && (std::string_view(argv[1]) == "mcp" || std::string_view(argv[1]) == "wrap");
    return server ? kServerConfigurationError : status;
  }
  if (!executable.has_all_backends && needs_all_backends(*request)) return exec_full_paddock();
  if (const auto* run = std::get_if<RunRequest>(&*request);
      run != nullptr && ((!run->secrets.empty() && !executable.make_terminator) ||
                         (run->audit_log && !executable.open_audit_log))) {
    return exec_full_paddock();
  }
  if (auto* info = std::get_if<InfoRequest>(&*request)) {
    core::write_all(STDOUT_FILENO, info->text);
    return 0;
  }
  if (auto* doctor = std::get_if<DoctorRequest>(&*request)) return doctor_command(*doctor);
  if (auto* policy = std::get_if<PolicyRequest>(&*request)) return policy_command(*policy);
  if (auto* image = std::get_if<ImageRequest>(&*request)) {
    if (image->action == "import" || image->action == "pull") {
      return executable.transfer_images(*image);
    }
    return image_command(*image);
  }
  // The commands that run sandboxes with egress proxies in this process.
  raise_open_file_limit();
  if (auto* mcp = std::get_if<McpRequest>(&*request)) return executable.serve_mcp(*mcp);
  if (auto* wrap = std::get_if<WrapRequest>(&*request)) {
    return wrap_command(*wrap, executable.make_terminator, executable.open_audit_log);
  }
  return run_command(std::get<RunRequest>(*request), executable.make_terminator,
                     executable.open_audit_log);
}

}  // namespace paddock::cli
