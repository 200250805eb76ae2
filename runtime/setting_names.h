#pragma once

// The settings a runtime error may ask its caller to change (Error::setting), by neutral names.
// The messages say what the setting does in words; each front-end adds its own spelling
// (`paddock run` and `paddock mcp` their flag and variable: config/setting_words.h), so an MCP
// client or a Python caller never reads a flag it did not type.

#include <string>

#include "core/result.h"

namespace paddock::setting_names {

inline constexpr const char* kRequireCgroups = "require_cgroups";  // no rlimit fallback
inline constexpr const char* kSessionDisk = "session_disk";        // a session's work directory
inline constexpr const char* kImage = "image";                     // the image a run starts from
inline constexpr const char* kPodStartTimeout = "pod_start_timeout";
inline constexpr const char* kAllowedHosts = "allowed_hosts";      // the egress allowlist
inline constexpr const char* kInstallNetwork = "install_network";  // installers' network
inline constexpr const char* kSecrets = "secrets";                 // brokered secrets
inline constexpr const char* kBackend = "backend";                 // which backend runs sandboxes
inline constexpr const char* kBinds = "binds";                     // host folders bound in
inline constexpr const char* kCpuTime = "cpu_time";                // RLIMIT_CPU
inline constexpr const char* kKubeSeccompProfile = "kube_seccomp_profile";  // a nodes' profile

}  // namespace paddock::setting_names

namespace paddock::runtime {

// `error`, naming the setting that fixes it.
[[nodiscard]] inline core::Error naming_setting(core::Error error, const char* setting) {
  error.setting = setting;
  return error;
}

}  // namespace paddock::runtime
