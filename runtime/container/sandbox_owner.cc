#include "runtime/container/sandbox_owner.h"

#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <fstream>
#include <random>
#include <sstream>

namespace paddock::container {
namespace {

std::string first_line(const char* path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  return line;
}

std::string random_instance() {
  std::random_device random;
  std::ostringstream text;
  text << std::hex;
  for (int i = 0; i < 4; ++i) text << random();
  return text.str();
}

bool all_digits(const std::string& text) {
  return !text.empty() && text.size() < 10 &&
         text.find_first_not_of("0123456789") == std::string::npos;
}

}  // namespace

const SandboxOwner& this_paddock() {
  static const SandboxOwner owner = [] {
    SandboxOwner self;
    self.instance = random_instance();
    self.machine = first_line("/etc/machine-id");
    if (self.machine.empty()) {
      std::array<char, 256> host{};
      gethostname(host.data(), host.size() - 1);
      self.machine = host.data();
    }
    self.boot = first_line("/proc/sys/kernel/random/boot_id");
    struct stat info {};
    if (stat("/proc/self/ns/pid", &info) == 0) self.pid_namespace = std::to_string(info.st_ino);
    self.pid = std::to_string(getpid());
    self.started = process_start_time(getpid()).value_or("");
    return self;
  }();
  return owner;
}

nlohmann::json owner_labels(const SandboxOwner& owner) {
  return {{"io.paddock.instance", owner.instance}, {"io.paddock.machine", owner.machine},
          {"io.paddock.boot", owner.boot},         {"io.paddock.pidns", owner.pid_namespace},
          {"io.paddock.pid", owner.pid},           {"io.paddock.started", owner.started}};
}

std::optional<std::string> process_start_time(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string stat;
  if (!std::getline(in, stat)) return std::nullopt;
  // The command name (field 2) may hold spaces and parentheses: count fields after its last ')'.
  auto close = stat.rfind(')');
  if (close == std::string::npos) return std::nullopt;
  std::istringstream fields(stat.substr(close + 2));
  std::string field;
  for (int number = 3; number <= 22 && fields >> field; ++number) {
    if (number == 22) return field;
  }
  return std::nullopt;
}

bool owner_provably_dead(const nlohmann::json& labels, const SandboxOwner& self,
                         const std::function<std::optional<std::string>(pid_t)>& start_time_of) {
  if (!labels.is_object()) return false;
  auto label = [&](const char* name) {
    auto found = labels.find(name);
    return found != labels.end() && found->is_string() ? found->get<std::string>() : "";
  };
  std::string instance = label("io.paddock.instance");
  if (instance.empty() || instance == self.instance) return false;  // unknown, or ours
  if (label("io.paddock.machine") != self.machine || self.machine.empty()) return false;
  // This machine, an earlier boot: every process of that boot is gone.
  if (label("io.paddock.boot") != self.boot) return true;
  // A process of another PID namespace (a server in another container) cannot be looked up.
  if (label("io.paddock.pidns") != self.pid_namespace || self.pid_namespace.empty()) return false;
  std::string pid = label("io.paddock.pid");
  if (!all_digits(pid)) return false;
  auto started = start_time_of(static_cast<pid_t>(std::stol(pid)));
  return !started || *started != label("io.paddock.started");
}

}  // namespace paddock::container
