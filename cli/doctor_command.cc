#include "cli/doctor_command.h"

#include <unistd.h>

#include <nlohmann/json.hpp>

#include "cli/available_backends.h"
#include "cli/backend_settings.h"
#include "cli/output.h"
#include "runtime/native/host_probe.h"

namespace paddock::cli {
namespace {

struct BackendCheck {
  std::string name;
  bool reachable = false;
  std::string detail;
};

// Every backend but native (which the host report covers) is asked to connect: the engines
// say where they listen and why they cannot be reached.
std::vector<BackendCheck> check_backends() {
  std::vector<BackendCheck> checks;
  BackendSettings settings = backend_settings(config::process_environment());
  for (const auto& name : available_backends().names()) {
    if (name == "native") continue;
    auto backend = available_backends().create(name, settings);
    checks.push_back({name, backend.ok(), backend ? "reachable" : backend.error().message});
  }
  return checks;
}

}  // namespace

int doctor_command(const DoctorRequest& request) {
  native::HostReport report = native::probe_host();
  std::vector<BackendCheck> backends = check_backends();
  if (request.json) {
    nlohmann::json out = native::to_json(report);
    for (const auto& check : backends) {
      out["backends"][check.name] = {{"reachable", check.reachable}, {"detail", check.detail}};
    }
    core::write_all(STDOUT_FILENO, out.dump(2) + "\n");
  } else {
    std::string text =
        native::to_text(report) + "\nbackends:\n  native       always (this report)\n";
    for (const auto& check : backends) {
      text += "  " + check.name +
              std::string(13 - std::min<std::size_t>(12, check.name.size()), ' ') +
              (check.reachable ? "reachable" : "unreachable: " + check.detail) + "\n";
    }
    core::write_all(STDOUT_FILENO, text);
  }
  bool ready =
      report.user_namespaces.available && report.seccomp.available && report.pidfd.available;
  return ready ? 0 : 1;
}

}  // namespace paddock::cli
