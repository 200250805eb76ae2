// `paddock`: a thin command line over the runtime library.

#include <unistd.h>

#include "cli/command_line.h"
#include "cli/doctor_command.h"
#include "cli/output.h"
#include "cli/policy_command.h"
#include "cli/run_command.h"

int main(int argc, char** argv) {
  using namespace paddock::cli;
  auto request = parse_command_line(argc, argv);
  if (!request) return fail(request.error().message);
  if (auto* info = std::get_if<InfoRequest>(&*request)) {
    write_all(STDOUT_FILENO, info->text);
    return 0;
  }
  if (auto* doctor = std::get_if<DoctorRequest>(&*request)) return doctor_command(*doctor);
  if (auto* policy = std::get_if<PolicyRequest>(&*request)) return policy_command(*policy);
  return run_command(std::get<RunRequest>(*request));
}
