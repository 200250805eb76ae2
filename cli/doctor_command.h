#pragma once

#include "cli/command_line.h"

namespace paddock::cli {

// `paddock doctor`: what this host offers. Exit 0 when paddock can run sandboxes here.
int doctor_command(const DoctorRequest& request);

}  // namespace paddock::cli
