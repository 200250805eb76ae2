#include "config/setting_words.h"

#include <map>

#include "config/table.h"
#include "runtime/setting_names.h"

namespace paddock::config {
namespace {

// Each neutral name's row, by the flag that keys it in the table.
const std::map<std::string, std::string>& flags_by_setting() {
  namespace names = setting_names;
  static const std::map<std::string, std::string> flags = {
      {names::kRequireCgroups, "--require-cgroups"},
      {names::kSessionDisk, "--session-disk"},
      {names::kImage, "--image"},
      {names::kPodStartTimeout, "--pod-start-timeout"},
      {names::kAllowedHosts, "--allow-host"},
      {names::kInstallNetwork, "--install-network"},
      {names::kSecrets, "--secret"},
      {names::kBackend, "--backend"},
      {names::kBinds, "--bind"},
      {names::kCpuTime, "--cpu-time"},
      {names::kKubeSeccompProfile, "--kube-seccomp-profile"},
  };
  return flags;
}

}  // namespace

std::string how_to_set(const std::string& setting, Command command) {
  auto flag = flags_by_setting().find(setting);
  if (flag == flags_by_setting().end()) return "";
  const Setting* row = find_setting(flag->second, command);
  if (row == nullptr) return "";
  std::string text = " (set by " + row->flag;
  for (const auto& variable : row->variables_of(command)) text += " or " + variable;
  return text + ")";
}

std::string worded(const core::Error& error, Command command) {
  return error.message + how_to_set(error.setting, command);
}

}  // namespace paddock::config
