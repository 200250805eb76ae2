#include "cli/doctor_command.h"

#include <unistd.h>

#include <nlohmann/json.hpp>

#include "cli/output.h"
#include "native/host_probe.h"

namespace paddock::cli {

int doctor_command(const DoctorRequest& request) {
  HostReport report = probe_host();
  if (request.json) {
    write_all(STDOUT_FILENO, to_json(report).dump(2) + "\n");
  } else {
    write_all(STDOUT_FILENO, to_text(report));
  }
  bool ready =
      report.user_namespaces.available && report.seccomp.available && report.pidfd.available;
  return ready ? 0 : 1;
}

}  // namespace paddock::cli
