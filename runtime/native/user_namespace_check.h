#pragma once

// doctor's user namespace line, as a pure function of a described host: what the kernel's
// settings say and whether this user could create a user namespace. The description is read in
// one place (describe_user_namespaces), so every host shape (Ubuntu's AppArmor restriction,
// Debian's old unprivileged_userns_clone, a zero max_user_namespaces) is tested by describing it.

#include <optional>
#include <string>

#include "runtime/native/host_probe.h"

namespace paddock::native {

struct UserNamespaceHost {
  bool can_create = false;          // this user just created one (mapped to itself)
  std::string max_user_namespaces;  // /proc/sys/user/max_user_namespaces
  std::optional<std::string>
      unprivileged_userns_clone;  // Debian's older switch, if the kernel has it
  std::optional<std::string> apparmor_restrict_userns;  // Ubuntu 23.10+: kernel.apparmor_...
};

// Reads the settings from /proc/sys; can_create is what host_probe.cc found trying it.
UserNamespaceHost describe_user_namespaces(bool can_create);

// The doctor line's check: available, and what was found or, when not, the one thing to do.
Check user_namespace_check(const UserNamespaceHost& host);

}  // namespace paddock::native
