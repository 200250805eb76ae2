#pragma once

// The path of a Localhost seccomp profile, as a pod's securityContext names it: relative to the
// kubelet's seccomp directory (/var/lib/kubelet/seccomp by default) on every node. Header-only,
// so that `paddock mcp`'s configuration, which does not link the backend, checks it with the
// same rule the backend applies to PADDOCK_KUBE_SECCOMP_PROFILE.

#include <string_view>

namespace paddock::kube {

// The profile a pod gets when none is named: the container runtime's default.
inline constexpr const char* kRuntimeDefaultProfile = "RuntimeDefault";

// What a valid path is, for error messages: "... is not <this>; use e.g. ...".
inline constexpr const char* kLocalhostProfileRule =
    "a seccomp profile path relative to the kubelet's seccomp directory (no leading '/', no "
    "'..')";
inline constexpr const char* kLocalhostProfileExample = "profiles/paddock.json";

// The API server refuses an absolute path or one that climbs out with "..", and a control
// character could not be meant; refusing them here gives one clear line before any pod exists.
inline bool valid_localhost_profile(std::string_view path) {
  if (path.empty() || path.front() == '/') return false;
  for (char c : path) {
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) return false;
  }
  std::size_t start = 0;
  while (start <= path.size()) {
    std::size_t end = path.find('/', start);
    if (end == std::string_view::npos) end = path.size();
    if (path.substr(start, end - start) == "..") return false;
    start = end + 1;
  }
  return true;
}

}  // namespace paddock::kube
